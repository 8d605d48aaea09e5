import path from 'node:path';
import { openWorkflow } from '../workflow/launch.js';
import { cliHooks } from '../hooks/run-hooks.js';
import { planWorkflow, type WorkflowPlan } from '../workflow/plan.js';
import { reportStartupError } from './startup-errors.js';
import { cliGrantHints } from '../ui/grant-hints.js';
import { formatPlan } from '../ui/render/plan-text.js';
import { streamTargets, type CliEnvironment } from './environment.js';
import type { RunRequest, RunStreams } from './run-workflow.js';
import { SecretMasker } from '../host/masking.js';
import { guardStreams } from '../ui/render/guarded-sink.js';
import { privateStoreOf } from './cache-places.js';

export type PlanRequest = Pick<RunRequest, 'file' | 'choices' | 'hooksFile'>;

/** Prints the plan of a workflow (or returns it for --json); exit 2 when it cannot be planned. */
export async function planWorkflowCommand(
  request: PlanRequest,
  environment: CliEnvironment,
  rawStreams: RunStreams,
  options: { print: boolean },
): Promise<{ exitCode: number; plan?: WorkflowPlan }> {
  // The plan shows arguments, which may hold the workflow's secrets once they are read.
  const masker = new SecretMasker();
  const streams = guardStreams(rawStreams, masker, streamTargets(environment));
  const warn = (line: string) => streams.stderr.write(`${line}\n`);
  try {
    // Gates are consulted only when asked for: hook programs are code, and a plan runs none unasked.
    const privateStore = privateStoreOf(environment.env);
    const hooks = request.hooksFile === undefined ? undefined : cliHooks({ file: path.resolve(request.hooksFile), labels: [], env: environment.env, masker, warn });
    const opened = await openWorkflow(
      {
        file: request.file,
        cwd: process.cwd(),
        choices: request.choices,
        ports: { hostEnv: environment.env, grantHints: cliGrantHints, warn, ...(hooks && { hooks }), ...(privateStore && { privateStore }) },
      },
      'skip',
    );
    masker.add(...Object.values(opened.secrets));
    let plan: WorkflowPlan;
    try {
      plan = await planWorkflow(opened, hooks ? { gates: opened.hooks?.gates ?? [] } : {});
    } finally {
      await opened.hooks?.finish();
    }
    if (options.print) for (const line of formatPlan(plan)) streams.stdout.write(`${line}\n`);
    // --json prints what is returned: masked like every other output.
    return { exitCode: 0, plan: masker.maskDeep(plan) };
  } catch (error) {
    return { exitCode: reportStartupError(error, (line) => streams.stderr.write(`${line}\n`)) };
  }
}
