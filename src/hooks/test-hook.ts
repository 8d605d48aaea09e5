import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { HostError } from '../host/errors.js';
import { hookEnvelopeSchema, type HookEnvelope } from '../host/hooks/envelope.js';
import { defaultHookTimeoutMs, type GateEntry, type ObserverEntry } from './config.js';
import { hookEnvironment } from './hook-environment.js';
import { readHooksFile } from './load-config.js';
import type { HookSandbox } from '../host/run-observer.js';
import { hookName, programOf } from './load-hooks.js';
import { runGateProgram } from './program-gate.js';
import { runHookProgram, type HookProgram } from './run-program.js';

export interface HookTestOptions {
  /** The hook: a program and its arguments, or (with `hooksFile`) the name or command of one of its entries. */
  hook: readonly string[];
  eventFile: string;
  hooksFile: string | undefined;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  timeoutMs: number | undefined;
  /** Confines the hook as a run would; unconfined when absent. */
  sandbox?: HookSandbox;
}

/** What one hook did with one envelope. A gate failure shows the decision it turns into. */
export type HookTestResult =
  | { role: 'gate'; decision: 'continue' | 'deny'; reason: string | null; failure: string | null; durationMs: number }
  | { role: 'observer'; delivered: boolean; failure: string | null; durationMs: number };

/**
 * Runs one hook program on a sample envelope the way a run would (stdin only, scrubbed
 * environment, time limit) and reports the parsed decision. `before_tool_use` envelopes are
 * answered as by a gate, every other kind is delivered as to an observer.
 */
export async function testHook(options: HookTestOptions): Promise<HookTestResult> {
  const envelope = await readEnvelope(path.resolve(options.cwd, options.eventFile), options.eventFile);
  const env = hookEnvironment(options.env, []);
  const { program, onError } = await resolveHook(options, env);
  const signal = new AbortController().signal;
  if (envelope.kind === 'before_tool_use') {
    const { parsed, durationMs } = await runGateProgram(program, envelope, signal);
    if (parsed.ok) {
      const reason = parsed.answer.decision === 'deny' ? parsed.answer.reason : null;
      return { role: 'gate', decision: parsed.answer.decision, reason, failure: null, durationMs: Math.round(durationMs) };
    }
    const decision = onError === 'continue' ? 'continue' : 'deny';
    return { role: 'gate', decision, reason: null, failure: `the hook ${parsed.problem}`, durationMs: Math.round(durationMs) };
  }
  const run = await runHookProgram(program, JSON.stringify(envelope), signal);
  const failure = run.outcome === 'failed' ? `the hook ${run.reason}` : null;
  return { role: 'observer', delivered: failure === null, failure, durationMs: Math.round(run.durationMs) };
}

async function readEnvelope(file: string, shown: string): Promise<HookEnvelope> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (cause) {
    throw new HostError('invalid_event', `${shown} is not a readable JSON file: ${(cause as Error).message}`, { cause });
  }
  const parsed = hookEnvelopeSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new HostError('invalid_event', `${shown} is not a hook envelope (${issue?.path.join('.') || 'top level'}: ${issue?.message}); see rho hooks schema envelope`, {
    cause: parsed.error,
  });
}

async function resolveHook(options: HookTestOptions, env: Record<string, string>): Promise<{ program: HookProgram; onError: 'deny' | 'continue' }> {
  if (options.hooksFile === undefined) {
    const [file, ...args] = options.hook;
    if (!file) throw new HostError('usage', 'name the hook program to run, e.g. rho hooks test ./hooks/guard.mjs --event sample.json');
    const entry: GateEntry = { command: [file, ...args], timeout_ms: options.timeoutMs ?? defaultHookTimeoutMs, writes: [], on_error: 'deny' };
    return { program: programOf(entry, options.cwd, env, options.sandbox), onError: 'deny' };
  }
  const source = await readHooksFile(options.hooksFile, options.cwd);
  const wanted = options.hook.join(' ');
  const entries: (GateEntry | ObserverEntry)[] = [...source.config.pre_tool_use, ...source.config.observer];
  const entry = entries.find((candidate) => hookName(candidate) === wanted || candidate.command.join(' ') === wanted);
  if (!entry) {
    const known = entries.map((candidate) => JSON.stringify(hookName(candidate))).join(', ') || 'none';
    throw new HostError('usage', `${source.origin} has no hook named ${JSON.stringify(wanted)}; its hooks are: ${known}`);
  }
  const configured = options.timeoutMs === undefined ? entry : { ...entry, timeout_ms: options.timeoutMs };
  return { program: programOf(configured, source.baseDir, env, options.sandbox), onError: 'on_error' in entry ? entry.on_error : 'deny' };
}
