import { openWorkflow } from '../workflow/launch.js';
import { planWorkflow, type WorkflowPlan } from '../workflow/plan.js';
import { reportStartupError } from './startup-errors.js';
import { cliGrantHints } from '../ui/grant-hints.js';
import { formatPlan } from '../ui/render/plan-text.js';
import type { CliEnvironment } from './environment.js';
import type { RunRequest, RunStreams } from './run-workflow.js';
import { SecretMasker } from '../host/masking.js';
import { guardStreams } from '../ui/render/guarded-sink.js';

export type PlanRequest = Pick<RunRequest, 'file' | 'choices'>;

/** Prints the plan of a workflow (or returns it for --json); exit 2 when it cannot be planned. */
export async function planWorkflowCommand(
  request: PlanRequest,
  environment: CliEnvironment,
  rawStreams: RunStreams,
  options: { print: boolean },
): Promise<{ exitCode: number; plan?: WorkflowPlan }> {
  // The plan shows arguments, which may hold the workflow's secrets once they are read.
  const masker = new SecretMasker();
  const streams = guardStreams(rawStreams, masker, environment.githubActions);
  try {
    const opened = await openWorkflow({
      file: request.file,
      cwd: process.cwd(),
      choices: request.choices,
      ports: { hostEnv: environment.env, grantHints: cliGrantHints, warn: (line) => streams.stderr.write(`${line}\n`) },
    }, 'skip');
    masker.add(...Object.values(opened.secrets));
    const plan = await planWorkflow(opened);
    if (options.print) for (const line of formatPlan(plan)) streams.stdout.write(`${line}\n`);
    return { exitCode: 0, plan };
  } catch (error) {
    return { exitCode: reportStartupError(error, (line) => streams.stderr.write(`${line}\n`)) };
  }
}
