import type { RunHooks, RunHooksFactory } from '../host/run-observer.js';
import type { HookOptions } from './run-bridge.js';

/**
 * The hooks of a CLI run: the `--hooks` file and the workflow's `hooks:` key, as gates for the
 * host and an observer of its events. Returns no hooks when neither is given; the hook machinery
 * (envelopes, payload schemas, program runners) loads only when one is.
 */
export function cliHooks(options: HookOptions): RunHooksFactory {
  return async (declared, runId) => {
    if (options.file === undefined && declared.inline === undefined) return noHooks;
    const { loadRunHooks } = await import('./run-bridge.js');
    return loadRunHooks(options, declared, runId);
  };
}

const noHooks: RunHooks = { gates: [], observer: { event: () => {}, callFinished: () => {} }, finish: async () => {} };
