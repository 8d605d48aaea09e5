import path from 'node:path';
import type { GateEntry, HookLimits, ObserverEntry } from './config.js';
import { defaultPayloadBounds } from '../host/hooks/bounds.js';
import type { Delegation, EnvelopeContext } from '../host/hooks/envelope.js';
import { envelopeContextOf, HostObservers } from '../host/hooks/host-observers.js';
import { parseHostLabelMap } from '../host/hooks/labels.js';
import { HookLatency, type HookLatencyEntry } from '../host/hooks/latency.js';
import type { ObserverDrainReport } from '../host/hooks/observer.js';
import type { HookSourceEvent } from '../host/hooks/payloads.js';
import type { PreToolGate } from '../host/gates.js';
import { hookConfinementPlan } from '../host/confinement/index.js';
import type { HookSandbox } from '../host/run-observer.js';
import { HostError } from '../host/errors.js';
import { findSystemProgram, systemDirectories } from '../tools/process/trusted-programs.js';
import { hookEnvironment } from './hook-environment.js';
import { parseInlineHooks, readHooksFile, type HooksSource } from './load-config.js';
import { ProgramGate } from './program-gate.js';
import { ProgramObserver } from './program-observer.js';
import type { HookProgram } from './run-program.js';

export interface LoadHooksOptions {
  /** `--hooks FILE` (TOML), relative to `cwd`. */
  file?: string;
  /** The workflow's `hooks:` value as parsed from YAML. */
  inline?: unknown;
  /** Where relative paths of inline hooks start (the workflow file's directory); also resolves `file`. */
  cwd: string;
  /** The host environment; hook programs get it scrubbed of credentials and of `secretNames`. */
  env: Readonly<Record<string, string | undefined>>;
  /** The workflow's `secrets:` names. */
  secretNames?: readonly string[];
  /** `--label KEY=VALUE` values. */
  labels: Readonly<Record<string, string>>;
  runId: string;
  /** Defaults to `runId`. */
  sessionId?: string;
  /** Defaults to a root run. */
  delegation?: Delegation;
  /** The run's secret masker, applied to every string of every envelope. */
  redact?: (text: string) => string;
  /** Observer failures, drops and advisory gate failures; they never fail the run. */
  onWarning?: (message: string) => void;
  /** Whether hook programs are confined, and the homes they must not see; unconfined when absent. */
  sandbox?: HookSandbox;
}

export interface HookRunSummary {
  /** Per-hook latency in configuration order, gates first. */
  hooks: HookLatencyEntry[];
  warnings: string[];
}

export interface LoadedHooks {
  /** Pass to `ToolHost` as `gates`. */
  gates: PreToolGate[];
  /** Pass to `ToolHost` as `observer`: the run's events, as envelopes, to the observer programs. */
  observer: HostObservers;
  /** The identity and bounds every envelope of this run uses. */
  context: EnvelopeContext;
  /** Builds the envelope of an observed event and queues it; returns at once. */
  notify(event: HookSourceEvent): void;
  /** At the end of the run: waits for observers up to the configured drain deadline. */
  finish(): Promise<ObserverDrainReport>;
  summary(): HookRunSummary;
}

/** Warnings kept for the summary; beyond this they are still passed to `onWarning`. */
const maxKeptWarnings = 100;

/**
 * Loads the hooks of a run from the hooks file and the workflow's `hooks:` key (both apply:
 * hooks only tighten, so more gates can never loosen anything) and turns them into host gates
 * and a queue of observers.
 */
export async function loadHooks(options: LoadHooksOptions): Promise<LoadedHooks> {
  const sources: HooksSource[] = [];
  if (options.inline !== undefined && options.inline !== null) sources.push(parseInlineHooks(options.inline, options.cwd));
  if (options.file !== undefined) sources.push(await readHooksFile(options.file, options.cwd));
  const limits: HookLimits = Object.assign({}, ...sources.map((source) => source.config.limits));

  const warnings: string[] = [];
  const onWarning = (message: string) => {
    if (warnings.length < maxKeptWarnings) warnings.push(message);
    options.onWarning?.(message);
  };
  const context = envelopeContextOf({
    runId: options.runId,
    sessionId: options.sessionId,
    delegation: options.delegation,
    labels: parseHostLabelMap(options.labels),
    bounds: {
      fieldBytes: limits.field_bytes ?? defaultPayloadBounds.fieldBytes,
      envelopeBytes: limits.envelope_bytes ?? defaultPayloadBounds.envelopeBytes,
    },
    redact: options.redact,
  });
  const env = hookEnvironment(options.env, options.secretNames ?? []);
  const latency = new HookLatency();
  const names = new UniqueNames();

  const gates = sources.flatMap((source) =>
    source.config.pre_tool_use.map(
      (entry) =>
        new ProgramGate({
          name: names.take(entry),
          program: programOf(entry, source.baseDir, env, options.sandbox),
          tools: entry.tools,
          onError: entry.on_error,
          context,
          latency,
          onWarning,
        }),
    ),
  );
  const observer = new HostObservers({
    context,
    observers: sources.flatMap((source) =>
      source.config.observer.map((entry) => new ProgramObserver(names.take(entry), entry.events, programOf(entry, source.baseDir, env, options.sandbox))),
    ),
    capacity: limits.observer_queue,
    drainTimeoutMs: limits.drain_timeout_ms,
    latency,
    onWarning,
  });

  return {
    gates,
    observer,
    context,
    notify: (event) => observer.notify(event),
    finish: () => observer.drain(),
    summary: () => ({ hooks: latency.report().hooks, warnings: [...warnings] }),
  };
}

export function programOf(entry: GateEntry | ObserverEntry, baseDir: string, env: Record<string, string>, sandbox?: HookSandbox): HookProgram {
  const [program, ...args] = entry.command;
  const file = resolveHookProgram(program, baseDir);
  const confinement = sandbox && {
    status: sandbox.status,
    plan: hookConfinementPlan({ baseDirectory: baseDir, writes: entry.writes ?? [], homeDirectories: sandbox.homeDirectories, privatePaths: sandbox.privatePaths ?? [] }),
  };
  return { command: [file, ...args], cwd: baseDir, env, timeoutMs: entry.timeout_ms, ...(confinement && { confinement }) };
}

/**
 * The file a hook's program names. A path (with a `/`) is the user's own choice, relative to the
 * file that declares the hook. A bare name is never looked up on PATH, where a step may have
 * planted a program of that name (`node_modules/.bin/node`, which `npm run` puts first): `node`
 * is the Node that runs rho, any other name is found in the system directories only.
 */
export function resolveHookProgram(program: string, baseDir: string): string {
  if (program.includes('/')) return path.resolve(baseDir, program);
  if (program === 'node') return process.execPath;
  const found = findSystemProgram(program);
  if (found) return found;
  throw new HostError(
    'invalid_hooks',
    `hook program ${JSON.stringify(program)} was not found in the system directories (${systemDirectories.join(', ')}); a hook's program is never looked up on PATH, where a step could plant one: name it by its absolute path`,
  );
}

/** Hook names as the summary and denials show them: the configured name or the command, made unique. */
class UniqueNames {
  private readonly seen = new Map<string, number>();

  take(entry: GateEntry | ObserverEntry): string {
    const base = hookName(entry);
    const count = (this.seen.get(base) ?? 0) + 1;
    this.seen.set(base, count);
    return count === 1 ? base : `${base} #${count}`;
  }
}

/** A hook's own name: the configured one, or its command. */
export function hookName(entry: GateEntry | ObserverEntry): string {
  if (entry.name) return entry.name;
  const text = entry.command.join(' ');
  return text.length > 64 ? `${text.slice(0, 63)}…` : text;
}
