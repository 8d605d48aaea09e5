import { RhoCommand } from '../src/cli/rho-command.js';
import { readCliEnvironment } from '../src/cli/environment.js';
import { runFlags, splitPassThrough, taskArg, taskArgumentsArg, workflowArg } from '../src/cli/run-flags.js';

export default class Run extends RhoCommand {
  static override summary = 'Run a workflow.';
  static override description =
    `Every step is a tool call that goes through rho's ToolHost: strict argument parsing, a default-deny policy, hooks, approvals and resource-aware scheduling.

Exit codes: 0 success, 1 a step failed, 2 usage error or invalid workflow (nothing ran), 3 a step was denied, 74 an output could not be written while the run went on, 124 --timeout expired, 130 interrupted.`;

  static override examples = [
    '<%= config.bin %> run',
    '<%= config.bin %> run test-crate biome_cli',
    '<%= config.bin %> run workflows/hello.yml who=rho',
    '<%= config.bin %> run tasks.yml build',
    '<%= config.bin %> run tasks.yml test -- --watch src/',
    `<%= config.bin %> run release.yml -i tag=v1.2.0 --allow 'write(dist/**)' --approve 'process(npm publish)'`,
    '<%= config.bin %> run ci.yml -j 4 --output plain --timeout 10m',
    '<%= config.bin %> run ci.yml --junit reports/rho.xml --events reports/events.ndjson',
    '<%= config.bin %> run build.yml --watch',
    '<%= config.bin %> run build.yml --force-step test',
  ];

  static override strict = false;
  static override args = { workflow: workflowArg, task: taskArg, arguments: taskArgumentsArg };

  static override flags = runFlags;

  async run(): Promise<void> {
    const { argv, passThrough } = splitPassThrough(this.argv);
    const { argv: words, flags } = await this.parse(Run, argv);
    const environment = readCliEnvironment();
    const streams = { stdout: process.stdout, stderr: process.stderr };
    const { runSettingsOf, runTargetOf } = await import('../src/cli/run-settings.js');
    const target = await this.orExit(() => runTargetOf('run', words as string[], passThrough));
    if (flags['dry-run']) {
      const settings = await this.orExit(async () => runSettingsOf('plan', flags, target, environment));
      const { planWorkflowCommand } = await import('../src/cli/plan-workflow.js');
      const planned = await planWorkflowCommand(settings, streams, { print: true });
      if (planned.exitCode !== 0) this.exit(planned.exitCode);
      return;
    }
    // A watch starts a run per change, each probing for itself.
    const probe = flags.watch ? undefined : (await import('../src/cli/early-probe.js')).startSandboxProbe(flags.sandbox, environment.env);
    const settings = await this.orExit(async () => runSettingsOf('run', flags, target, environment, probe));
    const code = flags.watch
      ? await (await import('../src/cli/watch-workflow.js')).watchWorkflowCommand(settings, streams)
      : await (await import('../src/cli/run-workflow.js')).runWorkflowCommand(settings, streams);
    if (code !== 0) this.exit(code);
  }
}
