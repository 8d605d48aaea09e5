import { RhoCommand } from '../src/cli/rho-command.js';
import { readCliEnvironment } from '../src/cli/environment.js';
import { planFlags, splitPassThrough, taskArg, taskArgumentsArg, workflowArg } from '../src/cli/run-flags.js';
import type { WorkflowPlan } from '../src/workflow/plan.js';

export default class Plan extends RhoCommand {
  static override summary = 'Show what a workflow would do, without running anything.';
  static override description =
    "Prints the schedule (which steps can run together, and what each waits on: a dependency, a conflict on a resource, or an exclusive step acting as a barrier), each step’s capability requests and what the policy alone would decide. No step runs, no process starts, and none of the workflow's code runs: tool modules are not imported and MCP servers are not started (a note names each, and the steps using their tools are planned as known at run time). Same as `rho run --dry-run`.";

  static override examples = [
    '<%= config.bin %> plan',
    '<%= config.bin %> plan ci',
    '<%= config.bin %> plan workflows/hello.yml',
    '<%= config.bin %> plan tasks.yml build',
    '<%= config.bin %> plan release.yml -j 4 --allow "process(npm)" --json',
  ];
  static override strict = false;
  static override args = { workflow: workflowArg, task: taskArg, arguments: taskArgumentsArg };
  static override flags = planFlags;
  static override enableJsonFlag = true;

  async run(): Promise<WorkflowPlan | undefined> {
    const { argv, passThrough } = splitPassThrough(this.argv);
    const { argv: words, flags } = await this.parse(Plan, argv);
    const { planWorkflowCommand } = await import('../src/cli/plan-workflow.js');
    const { runSettingsOf, runTargetOf } = await import('../src/cli/run-settings.js');
    const settings = await this.orExit(async () => runSettingsOf('plan', flags, await runTargetOf('plan', words as string[], passThrough), readCliEnvironment()));
    const { exitCode, plan } = await planWorkflowCommand(settings, { stdout: process.stdout, stderr: process.stderr }, { print: !this.jsonEnabled() });
    if (exitCode !== 0) this.exit(exitCode);
    return plan;
  }
}
