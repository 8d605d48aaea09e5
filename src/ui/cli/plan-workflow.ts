import { HostError } from '../../host/errors.js';
import { openWorkflow } from '../../workflow/launch.js';
import { planWorkflow, type WorkflowPlan } from '../../workflow/plan.js';
import { InvalidWorkflowError, formatProblem } from '../../workflow/problems.js';
import { formatPlan } from '../render/plan-text.js';
import type { CliEnvironment } from './environment.js';
import type { RunRequest, RunStreams } from './run-workflow.js';

export type PlanRequest = Pick<RunRequest, 'file' | 'workspace' | 'maxParallel' | 'inputs' | 'allow' | 'ask' | 'deny'>;

/** Prints the plan of a workflow (or returns it for --json); exit 2 when it cannot be planned. */
export async function planWorkflowCommand(
  request: PlanRequest,
  environment: CliEnvironment,
  streams: RunStreams,
  options: { print: boolean },
): Promise<{ exitCode: number; plan?: WorkflowPlan }> {
  try {
    const opened = await openWorkflow({
      file: request.file,
      cwd: process.cwd(),
      ...(request.workspace !== undefined && { workspace: request.workspace }),
      ...(request.maxParallel !== undefined && { maxParallel: request.maxParallel }),
      inputs: request.inputs,
      rules: { allow: request.allow, ask: request.ask, deny: request.deny },
      approve: [],
      yes: false,
      hostEnv: environment.env,
      warn: (line) => streams.stderr.write(`${line}\n`),
    });
    const plan = await planWorkflow(opened);
    if (options.print) for (const line of formatPlan(plan)) streams.stdout.write(`${line}\n`);
    return { exitCode: 0, plan };
  } catch (error) {
    if (error instanceof InvalidWorkflowError) {
      for (const problem of error.problems) streams.stderr.write(`${formatProblem(problem)}\n`);
      return { exitCode: 2 };
    }
    if (error instanceof HostError) {
      streams.stderr.write(`rho: ${error.message}\n`);
      return { exitCode: 2 };
    }
    throw error;
  }
}
