import type { CapabilityRequest } from '../../host/capability.js';
import { ToolError } from '../../host/errors.js';
import { keyedDigest, type DigestKey } from '../../host/keyed-digest.js';
import type { ToolCall } from '../../host/prepared-call.js';
import type { Workspace } from '../../host/workspace.js';
import type { CompiledStep } from '../model.js';
import { computeCacheKey, type CacheKey } from './cache-key.js';
import { describeChange } from './changes.js';
import { digestFileSet, type FileDigest } from './file-set.js';
import { canonicalJson, digestEnvironment } from './fingerprint.js';
import { StateRecorder } from './state-recorder.js';
import type { CachedResult, RemoteCache } from './remote/remote-cache.js';
import { stepKey, type StateStore, type StepStateRecord, type UpToDateState } from './state-file.js';

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
  /** Where the records are kept: rho's own, never a request of the run. */
  store: StateStore;
  /** Keys every digest the records hold. */
  digestKey: DigestKey;
  /** `rho.os` and `rho.arch`: a cache key holds them, so no platform restores another's outputs. */
  platform: { os: string; arch: string };
  /** The shared cache a stale step is restored from and a step that succeeded is uploaded to. */
  remote?: RemoteCache;
  warn(line: string): void;
}

/** Where an up-to-date step's outputs are: as it left them here (`local`), or restored from the shared cache (`remote`). */
export type UpToDateSource = 'local' | 'remote';

/** What a step's check found: up to date (it does not run), or why it runs, with what to record if it succeeds. */
export type CheckVerdict =
  | { kind: 'up_to_date'; reason: string; source: UpToDateSource; cacheKey: CacheKey; restored?: { output: string; data: unknown } }
  | { kind: 'stale'; reason: string; pending: PendingRecord; cacheKey: CacheKey }
  | { kind: 'refused'; error: ToolError };

/** What a stale step's inputs were when it was checked; recorded once it succeeds. */
export interface PendingRecord {
  key: string;
  inputs: Omit<StepStateRecord, 'generates'>;
  /** Its recorded run still matches these inputs (it is forced, or its outputs changed): the record goes before it runs. */
  forgetFirst: boolean;
  /** Its key in the shared cache. */
  cacheKey: string;
}

/**
 * The up-to-date checks of one run. A step with `sources:` is up to date when its tool, its
 * resolved arguments, the variables it receives and the contents of its sources are what they
 * were at its last successful run, and its generated files are still as that run left them.
 * Every file of the workspace it reads is a request put to the run's authorization; the records
 * are rho's own (`options.store`), read once and written as the run goes on, and need no rule.
 */
export class UpToDateChecks {
  readonly #options: UpToDateOptions;
  #state: Promise<UpToDateState> | undefined;
  #envDigests: Record<string, string> | undefined;
  readonly #recorder: StateRecorder;

  constructor(options: UpToDateOptions) {
    this.#options = options;
    this.#recorder = new StateRecorder({ store: options.store, warn: options.warn });
  }

  /** Whether the step runs regardless of its check. */
  isForced(step: CompiledStep): boolean {
    const { force } = this.#options;
    return force === true || (Array.isArray(force) && force.includes(step.id));
  }

  /** Checks a step whose arguments are resolved, before its call is submitted. */
  async check(step: CompiledStep, call: ToolCall, signal: AbortSignal): Promise<CheckVerdict> {
    const state = await this.#loadState();
    const sources = await this.#digest(step.sources ?? [], call, signal);
    if (sources instanceof ToolError) return { kind: 'refused', error: sources };
    const { env, secrets, platform, digestKey } = this.#options;
    const cacheKey = computeCacheKey({ tool: step.tool, args: call.args, env, secrets, sources: contentDigests(sources), generates: step.generates, ...platform });
    const envDigests = (this.#envDigests ??= digestEnvironment(env, secrets, digestKey));
    const key = stepKey(this.#options.workflowKey, step.id);
    const inputs = { tool: step.tool, arguments: keyedDigest(digestKey, canonicalJson(call.args ?? null)), env: envDigests, sources: keyedDigests(sources) };
    const previous = state.steps[key];
    const inputChange = previous ? describeChange(previous, inputs) : 'no successful run is recorded';
    const pending: PendingRecord = { key, inputs, forgetFirst: inputChange === undefined, cacheKey: cacheKey.hash };
    const stale = async (reason: string): Promise<CheckVerdict> => (await this.#restored(step, call, pending, cacheKey, signal)) ?? { kind: 'stale', reason, pending, cacheKey };
    if (this.isForced(step)) return { kind: 'stale', reason: 'forced (--force)', pending, cacheKey };
    if (!previous || inputChange) return stale(inputChange ?? 'no successful run is recorded');
    const generated = await this.#digest(step.generates, call, signal);
    if (generated instanceof ToolError) return { kind: 'refused', error: generated };
    for (const [file, digest] of Object.entries(previous.generates)) {
      if (!generated.has(file)) return stale(`output ${file} is missing`);
      if (generated.get(file)?.keyed !== digest) return stale(`output ${file} changed`);
    }
    return { kind: 'up_to_date', reason: 'nothing it depends on changed since its last successful run', source: 'local', cacheKey };
  }

  /**
   * Called before a stale step runs. A record its inputs still match leaves the file first, so
   * a run that dies while the step runs never leaves the step recorded as up to date.
   */
  async starting(pending: PendingRecord): Promise<void> {
    if (pending.forgetFirst) await this.#recorder.forget(pending.key, true);
  }

  /**
   * Records a step that succeeded: its inputs as checked, and its generated files as it left
   * them; with a shared cache that may be written, its files and `result` are uploaded too.
   */
  async succeeded(
    step: CompiledStep,
    call: ToolCall,
    pending: PendingRecord,
    signal: AbortSignal,
    result: CachedResult = { output: '', data: null, durationMs: 0 },
  ): Promise<void> {
    const generated = await this.#record(step, call, pending, signal);
    if (generated) this.#options.remote?.upload(pending.cacheKey, step.id, [...generated.keys()], call, result, signal);
  }

  /** Forgets a step that ran and did not succeed: it runs next time whatever changed. */
  failed(pending: PendingRecord): void {
    void this.#recorder.forget(pending.key);
  }

  /** Waits for the uploads under way, then writes what this run recorded and has not written yet (nothing when no step was checked). */
  async save(): Promise<void> {
    await this.#options.remote?.settle();
    await this.#recorder.close();
  }

  /** A stale step restored from the shared cache, recorded as if it had run here; undefined when it must run. */
  async #restored(step: CompiledStep, call: ToolCall, pending: PendingRecord, cacheKey: CacheKey, signal: AbortSignal): Promise<CheckVerdict | undefined> {
    const restored = await this.#options.remote?.restore(cacheKey.hash, step.id, step.generates, call, signal);
    if (!restored) return undefined;
    await this.starting(pending);
    await this.#record(step, call, pending, signal);
    const files = restored.files.length;
    const reason = `restored from the remote cache (key ${cacheKey.hash.slice(0, 12)}, ${files} file${files === 1 ? '' : 's'})`;
    return { kind: 'up_to_date', reason, source: 'remote', cacheKey, restored: { output: restored.output, data: restored.data } };
  }

  /** Records the step's inputs and its generated files as they are now; the files, or undefined when they could not be read. */
  async #record(step: CompiledStep, call: ToolCall, pending: PendingRecord, signal: AbortSignal): Promise<Map<string, FileDigest> | undefined> {
    const generated = await this.#digest(step.generates, call, signal);
    if (generated instanceof ToolError) {
      this.#options.warn(`rho: step ${step.id} ran, but its outputs could not be recorded (${generated.message}); it runs again next time`);
      void this.#recorder.forget(pending.key);
      return undefined;
    }
    this.#recorder.record(pending.key, { ...pending.inputs, generates: keyedDigests(generated) });
    return generated;
  }

  #loadState(): Promise<UpToDateState> {
    const { store, warn } = this.#options;
    this.#state ??= store.load().then(({ state, problem }) => {
      if (problem) warn(`rho: the up-to-date state in ${store.place} is unreadable (${problem}); every step with sources runs, and it is written anew`);
      return state;
    });
    return this.#state;
  }

  #digest(globs: readonly string[], call: ToolCall, signal: AbortSignal): Promise<Map<string, FileDigest> | ToolError> {
    const { workspace, authorize, withheld, digestKey } = this.#options;
    return digestFileSet(globs, { workspace, withheld, signal, digestKey, authorize: (request) => authorize(call, request, signal) }).catch((error: unknown) =>
      error instanceof ToolError ? error : new ToolError('execution_failed', (error as Error).message, { cause: error }),
    );
  }
}

function keyedDigests(files: ReadonlyMap<string, FileDigest>): Record<string, string> {
  return Object.fromEntries([...files].map(([file, digest]) => [file, digest.keyed]));
}

function contentDigests(files: ReadonlyMap<string, FileDigest>): Map<string, string> {
  return new Map([...files].map(([file, digest]) => [file, digest.content]));
}
