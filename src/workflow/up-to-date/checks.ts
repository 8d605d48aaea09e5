import type { CapabilityRequest } from '../../host/capability.js';
import { ToolError } from '../../host/errors.js';
import type { ToolCall } from '../../host/prepared-call.js';
import type { ResolvedPath, Workspace } from '../../host/workspace.js';
import type { CompiledStep } from '../model.js';
import { describeChange } from './changes.js';
import { digestFileSet } from './file-set.js';
import { canonicalJson, digestEnvironment, sha256 } from './fingerprint.js';
import { StateRecorder } from './state-recorder.js';
import { emptyState, loadState, stateFilePath, stepKey, type StepStateRecord, type UpToDateState } from './state-file.js';

/** Decides one request a step's check makes, with the step's call as its subject. */
export type CheckAuthorizer = (subject: ToolCall, request: CapabilityRequest, signal: AbortSignal) => Promise<ToolError | undefined>;

/** `--force`: every step, the named steps, or none. */
export type ForceChoice = boolean | readonly string[];

export interface UpToDateOptions {
  workspace: Workspace;
  authorize: CheckAuthorizer;
  withheld(absolute: string): boolean;
  /** Names this workflow's records in the state (its file, relative to the workspace when inside it). */
  workflowKey: string;
  /** The variables every step receives (the workflow's `env:` and env files) and the secrets. */
  env: Readonly<Record<string, string>>;
  secrets: Readonly<Record<string, string>>;
  force: ForceChoice;
  warn(line: string): void;
}

/** What a step's check found: up to date (it does not run), or why it runs, with what to record if it succeeds. */
export type CheckVerdict =
  | { kind: 'up_to_date'; reason: string }
  | { kind: 'stale'; reason: string; pending: PendingRecord }
  | { kind: 'refused'; error: ToolError };

/** What a stale step's inputs were when it was checked; recorded once it succeeds. */
export interface PendingRecord {
  key: string;
  inputs: Omit<StepStateRecord, 'generates'>;
  /** Its recorded run still matches these inputs (it is forced, or its outputs changed): the record goes before it runs. */
  forgetFirst: boolean;
}

/**
 * The up-to-date checks of one run. A step with `sources:` is up to date when its tool, its
 * resolved arguments, the variables it receives and the contents of its sources are what they
 * were at its last successful run, and its generated files are still as that run left them.
 * Every file it reads and the state it writes are requests put to the run's authorization.
 */
export class UpToDateChecks {
  readonly #options: UpToDateOptions;
  #state: Promise<UpToDateState> | undefined;
  #envDigests: Record<string, string> | undefined;
  #recorder: StateRecorder | undefined;
  #statePath: ResolvedPath | undefined;
  /** The state's read and write, granted once for the run: it is read once and written by the run, not by each step. */
  #stateGrant: Promise<ToolError | undefined> | undefined;

  constructor(options: UpToDateOptions) {
    this.#options = options;
  }

  /** Whether the step runs regardless of its check. */
  isForced(step: CompiledStep): boolean {
    const { force } = this.#options;
    return force === true || (Array.isArray(force) && force.includes(step.id));
  }

  /** Checks a step whose arguments are resolved, before its call is submitted. */
  async check(step: CompiledStep, call: ToolCall, signal: AbortSignal): Promise<CheckVerdict> {
    const refusal = await this.#grantState(call, signal);
    if (refusal) return { kind: 'refused', error: refusal };
    const state = await this.#loadState();
    const { workspace, warn } = this.#options;
    this.#recorder ??= new StateRecorder({ workspace, authorized: this.#statePath!, base: state, warn });
    const sources = await this.#digest(step.sources ?? [], call, signal);
    if (sources instanceof ToolError) return { kind: 'refused', error: sources };
    const envDigests = (this.#envDigests ??= digestEnvironment(this.#options.env, this.#options.secrets, state.salt));
    const key = stepKey(this.#options.workflowKey, step.id);
    const inputs = { tool: step.tool, arguments: sha256(canonicalJson(call.args ?? null)), env: envDigests, sources: Object.fromEntries(sources) };
    const previous = state.steps[key];
    const inputChange = previous ? describeChange(previous, inputs) : 'no successful run is recorded';
    const stale = (reason: string): CheckVerdict => ({ kind: 'stale', reason, pending: { key, inputs, forgetFirst: inputChange === undefined } });
    if (this.isForced(step)) return stale('forced (--force)');
    if (!previous || inputChange) return stale(inputChange ?? 'no successful run is recorded');
    const generated = await this.#digest(step.generates, call, signal);
    if (generated instanceof ToolError) return { kind: 'refused', error: generated };
    for (const [file, digest] of Object.entries(previous.generates)) {
      if (!generated.has(file)) return stale(`output ${file} is missing`);
      if (generated.get(file) !== digest) return stale(`output ${file} changed`);
    }
    return { kind: 'up_to_date', reason: 'nothing it depends on changed since its last successful run' };
  }

  /**
   * Called before a stale step runs. A record its inputs still match leaves the file first, so
   * a run that dies while the step runs never leaves the step recorded as up to date.
   */
  async starting(pending: PendingRecord): Promise<void> {
    if (pending.forgetFirst) await this.#recorder?.forget(pending.key, true);
  }

  /** Records a step that succeeded: its inputs as checked, and its generated files as it left them. */
  async succeeded(step: CompiledStep, call: ToolCall, pending: PendingRecord, signal: AbortSignal): Promise<void> {
    const generated = await this.#digest(step.generates, call, signal);
    if (generated instanceof ToolError) {
      this.#options.warn(`rho: step ${step.id} ran, but its outputs could not be recorded (${generated.message}); it runs again next time`);
      void this.#recorder?.forget(pending.key);
      return;
    }
    this.#recorder?.record(pending.key, { ...pending.inputs, generates: Object.fromEntries(generated) });
  }

  /** Forgets a step that ran and did not succeed: it runs next time whatever changed. */
  failed(pending: PendingRecord): void {
    void this.#recorder?.forget(pending.key);
  }

  /** Writes what this run recorded and has not written yet (nothing when no step was checked). */
  async save(): Promise<void> {
    await this.#recorder?.close();
  }

  /**
   * The state's requests, made on behalf of the first step checked; a grant holds for the run,
   * a refusal does not (the next step asks again). A step whose own signal still holds does not
   * take another step's cancellation as its answer.
   */
  async #grantState(call: ToolCall, signal: AbortSignal): Promise<ToolError | undefined> {
    for (;;) {
      const asking = this.#stateGrant === undefined;
      const grant = (this.#stateGrant ??= this.#authorizeState(call, signal));
      const refusal = await grant;
      if (!refusal) return undefined;
      if (this.#stateGrant === grant) this.#stateGrant = undefined;
      if (asking || refusal.kind !== 'cancelled' || signal.aborted) return refusal;
    }
  }

  /** The state is read and written on a step's behalf: both are requests decided like any other. */
  async #authorizeState(call: ToolCall, signal: AbortSignal): Promise<ToolError | undefined> {
    const { workspace, authorize } = this.#options;
    let forWrite: ResolvedPath;
    try {
      forWrite = await workspace.resolveForWrite(stateFilePath);
    } catch (error) {
      return error instanceof ToolError ? error : new ToolError('path_refused', `${stateFilePath}: ${(error as Error).message}`, { cause: error });
    }
    if (forWrite.state === 'existing') {
      const read = await workspace.resolveForRead(stateFilePath).catch((error: unknown) => error as Error);
      if (read instanceof Error) return read instanceof ToolError ? read : new ToolError('path_refused', read.message, { cause: read });
      const refused = await authorize(call, { class: 'read', path: read, target: 'file' }, signal);
      if (refused) return refused;
    }
    const refused = await authorize(call, { class: 'write', path: forWrite }, signal);
    if (refused) return refused;
    this.#statePath ??= forWrite;
    return undefined;
  }

  #loadState(): Promise<UpToDateState> {
    this.#state ??= this.#statePath!.state === 'existing'
      ? loadState(this.#statePath!.canonical).then(({ state, problem }) => {
          if (problem) this.#options.warn(`rho: ${stateFilePath} is unreadable (${problem}); every step with sources runs, and the file is written anew`);
          return state;
        })
      : Promise.resolve(emptyState());
    return this.#state;
  }

  #digest(globs: readonly string[], call: ToolCall, signal: AbortSignal): Promise<Map<string, string> | ToolError> {
    const { workspace, authorize, withheld } = this.#options;
    return digestFileSet(globs, { workspace, withheld, signal, authorize: (request) => authorize(call, request, signal) }).catch((error: unknown) =>
      error instanceof ToolError ? error : new ToolError('execution_failed', (error as Error).message, { cause: error }),
    );
  }
}
