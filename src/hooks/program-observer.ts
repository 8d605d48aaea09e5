import { ToolError } from '../host/errors.js';
import type { HookEnvelope } from '../host/hooks/envelope.js';
import type { ObservedKind } from '../host/hooks/kinds.js';
import type { AsyncHookObserver } from '../host/hooks/observer.js';
import { runHookProgram, type HookProgram } from './run-program.js';

/** An `[[observer]]` hook program: one run per event, the envelope on stdin, its output ignored. */
export class ProgramObserver implements AsyncHookObserver {
  constructor(
    readonly name: string,
    readonly kinds: readonly ObservedKind[] | undefined,
    private readonly program: HookProgram,
  ) {}

  async deliver(envelope: HookEnvelope, signal: AbortSignal): Promise<void> {
    const run = await runHookProgram(this.program, JSON.stringify(envelope), signal);
    if (run.outcome === 'failed') throw new ToolError('execution_failed', `the hook ${run.reason}`);
  }
}
