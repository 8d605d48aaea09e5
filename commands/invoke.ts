import { Args, Flags } from '@oclif/core';
import { RhoCommand } from '../src/cli/rho-command.js';
import { policyFlags } from '../src/cli/run-flags.js';

export default class Invoke extends RhoCommand {
  static override summary = 'Make one tool call through the ToolHost, as a one-step workflow would.';
  static override description =
    'The call takes the same path as a step of `rho run`: strict argument parsing, the policy (only the rules given here: nothing is allowed by default), hooks and approvals. The tool’s text output goes to stdout; with --json, the whole typed result. Exit codes as for `rho run`.';

  static override examples = [
    `<%= config.bin %> invoke echo --args '{"value": "hi"}'`,
    `<%= config.bin %> invoke read_file --args '{"path": "package.json", "limit": 5}' --allow 'read(package.json)'`,
    `<%= config.bin %> invoke exec --args '{"command": "git", "args": ["status"]}' --allow 'process(git status)' --json`,
  ];

  static override args = { tool: Args.string({ ignoreStdin: true, description: 'Tool name (see rho tools)', required: true }) };
  static override flags = {
    ...policyFlags,
    args: Flags.string({ summary: 'The call’s arguments as a JSON object.', default: '{}', helpValue: 'JSON' }),
    hooks: Flags.string({ summary: 'Hooks file (TOML): pre-tool gates and observers.', helpValue: 'FILE' }),
    timeout: Flags.string({ summary: 'Per-call limit (90s, 5m; default: the tool’s own).', helpValue: 'DURATION' }),
  };

  static override enableJsonFlag = true;

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(Invoke);
    const { readCliEnvironment } = await import('../src/cli/environment.js');
    const { invokeToolCommand } = await import('../src/cli/invoke-tool.js');
    const { runSettingsOf } = await import('../src/cli/run-settings.js');
    const settings = await this.orExit(async () => runSettingsOf('invoke', flags, { file: undefined }, readCliEnvironment()));
    const quiet = { write: () => {} };
    const { exitCode, result } = await invokeToolCommand({ tool: args.tool, args: flags.args, timeout: flags.timeout }, settings, {
      stdout: this.jsonEnabled() ? quiet : process.stdout,
      stderr: process.stderr,
    });
    if (exitCode !== 0) {
      if (this.jsonEnabled() && result) this.logJson(summarize(result));
      this.exit(exitCode);
    }
    return result && summarize(result);
  }
}

function summarize(result: { status: string; tool: string; output?: { text: string; data?: unknown }; error?: { kind: string; message: string }; durationMs: number }) {
  return {
    tool: result.tool,
    status: result.status,
    ...(result.output && { output: result.output.text, data: result.output.data ?? null }),
    ...(result.error && { error: { kind: result.error.kind, message: result.error.message } }),
    durationMs: result.durationMs,
  };
}
