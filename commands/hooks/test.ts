import { Args, Flags } from '@oclif/core';
import { RhoCommand } from '../../src/cli/rho-command.js';
import { HostError } from '../../src/host/errors.js';
import type { HookTestResult } from '../../src/hooks/test-hook.js';
import { readCliEnvironment } from '../../src/cli/environment.js';
import { safeText } from '../../src/ui/safe-text.js';

export default class HooksTest extends RhoCommand {
  static override summary = 'Run one hook program on a sample envelope and print its parsed decision.';
  static override description =
    `The envelope goes to the program on stdin, with the same scrubbed environment and time limit as in a run. A before_tool_use envelope is answered as by a gate (a failure shows the deny it turns into); any other kind is delivered as to an observer.

HOOK is the program and its arguments, or with --hooks the name (or command) of an entry in that hooks file.`;

  static override examples = [
    '<%= config.bin %> hooks test ./hooks/block-rm-rf.mjs --event sample.json',
    '<%= config.bin %> hooks test --event sample.json -- node hooks/block-rm-rf.mjs',
    '<%= config.bin %> hooks test block-rm-rf --hooks hooks.toml --event sample.json --json',
  ];

  static override strict = false;
  static override enableJsonFlag = true;

  static override args = {
    hook: Args.string({ ignoreStdin: true, description: 'Hook program (and its arguments), or an entry of --hooks', required: true }),
  };

  static override flags = {
    event: Flags.string({ char: 'e', summary: 'Envelope file (JSON), e.g. from rho hooks schema envelope.', required: true, helpValue: 'FILE' }),
    hooks: Flags.string({ summary: 'Hooks file (TOML) that declares HOOK.', helpValue: 'FILE' }),
    'timeout-ms': Flags.integer({ summary: 'Time limit for the program (default: the hook’s, or 10000).', min: 1, helpValue: 'MS' }),
  };

  async run(): Promise<HookTestResult> {
    const { argv, flags } = await this.parse(HooksTest);
    const { testHook } = await import('../../src/hooks/test-hook.js');
    const { standaloneHookSandbox } = await import('../../src/workflow/launch.js');
    const { privateStoreOf } = await import('../../src/cli/cache-places.js');
    const env = readCliEnvironment().env;
    let result: HookTestResult;
    try {
      result = await testHook({
        sandbox: await standaloneHookSandbox(env, privateStoreOf(env)?.paths ?? [], 'auto', [process.cwd()]),
        hook: argv as string[],
        eventFile: flags.event,
        hooksFile: flags.hooks,
        cwd: process.cwd(),
        env,
        timeoutMs: flags['timeout-ms'],
      });
    } catch (error) {
      if (error instanceof HostError) this.error(error.message, { exit: 2 });
      throw error;
    }
    // The hook's answer and its stderr are the program's words: shown as text, never obeyed by the terminal.
    this.log(safeText(describeResult(result), false));
    return result;
  }
}

function describeResult(result: HookTestResult): string {
  const took = `(${result.durationMs} ms)`;
  if (result.role === 'observer') return result.failure ? `observer failed: ${result.failure} ${took}` : `observer: delivered ${took}`;
  if (result.failure) {
    const why = result.decision === 'deny' ? 'fail closed' : 'advisory, on_error = "continue"';
    return `decision: ${result.decision} (${why}: ${result.failure}) ${took}`;
  }
  return `decision: ${result.decision}${result.reason ? ` — ${result.reason}` : ''} ${took}`;
}
