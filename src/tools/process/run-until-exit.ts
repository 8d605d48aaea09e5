import { describeRequest, type ProcessRequest, type ShellRequest } from '../../host/capability.js';
import type { PreparedExecution } from '../../host/tool.js';
import { completionOutput } from './completion-result.js';
import { launchFromRequest, type LaunchPlan } from './launch-plan.js';
import { processStepResources } from './resources.js';
import { runToCompletion } from './run-to-completion.js';
import { confinementHints } from './sandbox/failure-hints.js';

/**
 * The prepared execution of a process that runs to completion (`exec`, `shell`): the one
 * request it makes, shared access to its cwd, and an executor that launches exactly what was
 * authorized and reports its exit. The call waits for its process, so the directories of its
 * writable roots are guarded, and what it left there outside the rules denies it.
 */
export function runUntilExit(
  request: ProcessRequest | ShellRequest,
  unguarded: LaunchPlan,
  options: { label: string; stdin: string | undefined; okExitCodes: readonly number[] },
): PreparedExecution {
  const plan: LaunchPlan = { ...unguarded, confinement: unguarded.confinement && { ...unguarded.confinement, guarded: true } };
  return {
    requests: [request],
    resources: processStepResources(plan.cwd, plan.confinement),
    summary: describeRequest(request),
    confinement: plan.confinement,
    async execute(run) {
      const launch = await launchFromRequest(request, plan, options.stdin, run.workspace);
      const outcome = await runToCompletion(launch, request, run);
      const confinement = plan.confinement?.status.confined ? plan.confinement : undefined;
      const explain = ({ stdout, stderr }: { stdout: string; stderr: string }) => (confinement ? confinementHints(`${stdout}\n${stderr}`, confinement, launch.cwd) : []);
      return completionOutput(options.label, outcome, options.okExitCodes, request.wallLimitMs, run.workspace.root, explain);
    },
  };
}
