import { buildEnvelope, type EnvelopeContext, type HookEnvelopeOf } from '../host/hooks/envelope.js';
import type { HookLatency } from '../host/hooks/latency.js';
import { beforeToolUsePayload } from '../host/hooks/payloads.js';
import type { GateAnswer, GateInput, PreToolGate } from '../host/gates.js';
import { parseGateAnswer, type ParsedGateAnswer } from './gate-answer.js';
import { runHookProgram, type HookProgram } from './run-program.js';

export interface ProgramGateOptions {
  name: string;
  program: HookProgram;
  /** Tools whose calls go to this gate; every tool when undefined. */
  tools: readonly string[] | undefined;
  onError: 'deny' | 'continue';
  context: EnvelopeContext;
  latency: HookLatency;
  onWarning(message: string): void;
}

/**
 * A `[[pre_tool_use]]` hook program as a host gate: the call's `before_tool_use` envelope goes
 * to its stdin and its stdout must be one strict answer. Anything else fails closed, unless the
 * gate is advisory (`on_error = "continue"`).
 */
export class ProgramGate implements PreToolGate {
  readonly name: string;

  constructor(private readonly options: ProgramGateOptions) {
    this.name = options.name;
    options.latency.register(options.name, 'gate');
  }

  async evaluate(input: GateInput, signal: AbortSignal): Promise<GateAnswer> {
    const { tools, onError, latency } = this.options;
    if (tools && !tools.includes(input.tool)) return { decision: 'continue' };
    const envelope = buildEnvelope('before_tool_use', beforeToolUsePayload(input), this.options.context, input.delegation);
    const { parsed, durationMs } = await runGateProgram(this.options.program, envelope, signal);
    latency.record(this.name, 'gate', durationMs, parsed.ok);
    if (parsed.ok) return parsed.answer;
    if (onError === 'continue') {
      this.options.onWarning(`gate ${this.name} failed and is advisory (on_error = "continue"), so the call goes on: the hook ${parsed.problem}`);
      return { decision: 'continue' };
    }
    return {
      decision: 'deny',
      reason: `the hook ${parsed.problem}; a failing gate denies the call (set on_error = "continue" to make it advisory)`,
    };
  }
}

/** Runs a gate program on one envelope and parses what it printed; shared with `rho hooks test`. */
export async function runGateProgram(
  program: HookProgram,
  envelope: HookEnvelopeOf<'before_tool_use'>,
  signal: AbortSignal,
): Promise<{ parsed: ParsedGateAnswer; durationMs: number }> {
  const run = await runHookProgram(program, JSON.stringify(envelope), signal);
  if (run.outcome === 'failed') return { parsed: { ok: false, problem: run.reason }, durationMs: run.durationMs };
  return { parsed: parseGateAnswer(run.stdout), durationMs: run.durationMs };
}
