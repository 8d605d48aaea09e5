import { z } from 'zod';
import { describeRequest } from '../host/capability.js';
import { defineTool } from '../host/tool.js';
import { completionOutput } from './process/completion-result.js';
import { commandShape, launchOptionsShape, okExitCodesSchema } from './process/launch-options.js';
import { callWallLimitMs, launchFromRequest, planDirectProcess } from './process/launch-plan.js';
import { processStepResources } from './process/resources.js';
import { runToCompletion } from './process/run-to-completion.js';

const execArgs = z.strictObject({
  ...commandShape,
  ...launchOptionsShape,
  ok_exit_codes: okExitCodesSchema,
});

export const execTool = defineTool({
  name: 'exec',
  description: 'Run a program directly with an argument vector (no shell), with bounded output, in its own process group',
  origin: 'built-in',
  classes: ['process'],
  executionPolicy: 'resource-aware',
  schema: execArgs,
  async prepare(args, ctx) {
    const { plan, request } = await planDirectProcess(args, ctx, callWallLimitMs(args, ctx));
    return {
      requests: [request],
      resources: processStepResources(plan.cwd),
      summary: describeRequest(request),
      async execute(run) {
        const launch = await launchFromRequest(request, plan, args.stdin, run.workspace);
        const outcome = await runToCompletion(launch, request, run);
        return completionOutput(args.command, outcome, args.ok_exit_codes, request.wallLimitMs);
      },
    };
  },
});
