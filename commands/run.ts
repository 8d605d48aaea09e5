import { RhoCommand } from '../src/cli/rho-command.js';
import { readCliEnvironment } from '../src/cli/environment.js';
import { runFlags, splitPassThrough, taskArg, taskArgumentsArg, workflowArg } from '../src/cli/run-flags.js';
import type { OutputMode } from '../src/ui/render/choose.js';

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
    const { planRequestOf, runChoicesOf, targetOf } = await import('../src/cli/run-choices-of.js');
    const target = await targetOf('run', words as string[], streams);
    if (target === undefined) return this.exit(2);
    const given = { ...flags, ...target.choices, passThrough };
    if (flags['dry-run']) {
      const { planWorkflowCommand } = await import('../src/cli/plan-workflow.js');
      const planned = await planWorkflowCommand(planRequestOf(target.file, given), environment, streams, { print: true });
      if (planned.exitCode !== 0) this.exit(planned.exitCode);
      return;
    }
    // A watch starts a run per change, each probing for itself.
    const probeSandbox = flags.watch ? undefined : (await import('../src/cli/early-probe.js')).startSandboxProbe(flags.sandbox, environment.env);
    const { runWorkflowCommand } = await import('../src/cli/run-workflow.js');
    const command = flags.watch ? (await import('../src/cli/watch-workflow.js')).watchWorkflowCommand : runWorkflowCommand;
    const code = await command(
      {
        file: target.file,
        choices: runChoicesOf(given),
        noInput: flags['no-input'],
        output: flags.output as OutputMode,
        ...(flags.timeout !== undefined && { timeout: flags.timeout }),
        ...(flags.events !== undefined && { eventsFile: flags.events }),
        ...(flags.junit !== undefined && { junitFile: flags.junit }),
        ...(flags['output-limit'] !== undefined && { outputLimit: flags['output-limit'] }),
        logs: flags['no-logs'] ? { mode: 'off' } : flags.logs !== undefined ? { mode: 'dir', dir: flags.logs } : { mode: 'default' },
        ...(flags.hooks !== undefined && { hooksFile: flags.hooks }),
        labels: flags.label,
        answer: flags.answer,
        ...(flags.answers !== undefined && { answersFile: flags.answers }),
        ...(flags['question-timeout'] !== undefined && { questionTimeout: flags['question-timeout'] }),
        ...(probeSandbox && { probeSandbox }),
      },
      environment,
      streams,
    );
    if (code !== 0) this.exit(code);
  }
}
