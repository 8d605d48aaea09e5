import { exitCodes } from '../host/exit-codes.js';
import { formatPlan } from '../ui/render/plan-text.js';
import { openWorkflow } from '../workflow/launch.js';
import { planWorkflow, type WorkflowPlan } from '../workflow/plan.js';
import { assembleRun } from './assemble-run.js';
import type { RunStreams } from './environment.js';
import type { RunSettings } from './run-settings.js';

/** Prints the plan of a workflow (or returns it for --json); exit 2 when it cannot be planned. */
export async function planWorkflowCommand(
  settings: RunSettings & { file: string },
  streams: RunStreams,
  options: { print: boolean },
): Promise<{ exitCode: number; plan?: WorkflowPlan }> {
  let plan: WorkflowPlan | undefined;
  const exitCode = await assembleRun(settings, streams, {}, async (run) => {
    const opened = await openWorkflow({ file: settings.file, cwd: process.cwd(), choices: settings.choices, ports: run.ports, signal: run.signal }, 'skip');
    let planned: WorkflowPlan;
    try {
      // Gates are consulted only when asked for: hook programs are code, and a plan runs none unasked.
      planned = await planWorkflow(opened, settings.hooks ? { gates: opened.hooks?.gates ?? [] } : {});
    } finally {
      await opened.hooks?.finish();
    }
    if (options.print) for (const line of formatPlan(planned)) run.streams.stdout.write(`${line}\n`);
    // --json prints what is returned: masked with the workflow's secrets, like every other output.
    plan = run.masker.maskDeep(planned);
    return exitCodes.success;
  });
  return { exitCode, plan };
}
