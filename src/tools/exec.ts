import { z } from 'zod';
import { describeRequest } from '../host/capability.js';
import { defineTool } from '../host/tool.js';
import { completionOutput } from './process/completion-result.js';
import { resolveExecutable } from './process/executable.js';
import { argumentText, callWallLimitMs, launchOptionsShape, okExitCodesSchema, planLaunch } from './process/launch-options.js';
import { processRequest } from './process/request.js';
import { processStepResources } from './process/resources.js';
import { runToCompletion } from './process/run-to-completion.js';

const execArgs = z.strictObject({
  command: z.string().min(1).max(4096).refine((text) => !text.includes('\0'), 'may not contain a NUL byte').describe(
    'Program to run: a name looked up on PATH, or a path (relative to cwd) containing a /',
  ),
  args: z.array(argumentText).max(4096).default([]).describe('Arguments, passed as they are (no shell)'),
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
    const plan = await planLaunch(args, ctx);
    const executable = await resolveExecutable(args.command, { pathVariable: ctx.host.env.PATH, cwd: plan.cwd.canonical });
    const request = processRequest({
      cwd: plan.cwd.canonical,
      executable,
      argv: args.args,
      envMode: plan.envMode,
      envNames: plan.envNames,
      outputLimitBytes: plan.outputLimitBytes,
      wallLimitMs: callWallLimitMs(args, ctx),
    });
    return {
      requests: [request],
      resources: processStepResources(plan.cwd),
      summary: describeRequest(request),
      async execute(run) {
        const cwd = await run.workspace.revalidate(plan.cwd);
        const launch = { file: executable.resolved, args: args.args, cwd: cwd.canonical, env: plan.env, stdin: args.stdin };
        const outcome = await runToCompletion(launch, request, run);
        return completionOutput(args.command, outcome, args.ok_exit_codes, request.wallLimitMs);
      },
    };
  },
});
