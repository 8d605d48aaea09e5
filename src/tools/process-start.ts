import { z } from 'zod';
import { describeRequest } from '../host/capability.js';
import { exclusive } from '../host/resources.js';
import { defineTool } from '../host/tool.js';
import { backgroundProcesses, validateProcessId } from './process/background.js';
import { resolveExecutable } from './process/executable.js';
import { argumentText, launchOptionsShape, planLaunch } from './process/launch-options.js';
import { processRequest } from './process/request.js';
import { backgroundProcessResource, processStepResources } from './process/resources.js';

const labelLength = 100;

const processStartArgs = z.strictObject({
  command: z.string().min(1).max(4096).refine((text) => !text.includes('\0'), 'may not contain a NUL byte').describe(
    'Program to run: a name looked up on PATH, or a path (relative to cwd) containing a /',
  ),
  args: z.array(argumentText).max(4096).default([]).describe('Arguments, passed as they are (no shell)'),
  name: z.string().optional().describe('Process id to use (default: a generated proc-N); lower case, digits, _ and -'),
  ...launchOptionsShape,
  timeout: launchOptionsShape.timeout.describe('Lifetime limit in seconds (default: until stopped or until the run ends)'),
  max_output_bytes: launchOptionsShape.max_output_bytes.describe('Newest bytes of stdout and of stderr kept for process_output (each)'),
});

export const processStartTool = defineTool({
  name: 'process_start',
  description: 'Start a background process (direct argv, own process group); read it with process_output, stop it with process_stop',
  origin: 'built-in',
  classes: ['process'],
  executionPolicy: 'resource-aware',
  schema: processStartArgs,
  async prepare(args, ctx) {
    const processes = backgroundProcesses(ctx.session);
    if (args.name !== undefined) validateProcessId(args.name);
    const plan = await planLaunch(args, ctx);
    const executable = await resolveExecutable(args.command, { pathVariable: ctx.host.env.PATH, cwd: plan.cwd.canonical });
    const request = processRequest({
      cwd: plan.cwd.canonical,
      executable,
      argv: args.args,
      envMode: plan.envMode,
      envNames: plan.envNames,
      outputLimitBytes: plan.outputLimitBytes,
      wallLimitMs: args.timeout === undefined ? 0 : Math.round(args.timeout * 1000),
    });
    const processId = args.name ?? processes.reserveId();
    return {
      requests: [request],
      resources: [exclusive(backgroundProcessResource(processId)), ...processStepResources(plan.cwd)],
      summary: `start ${processId}: ${describeRequest(request)}`,
      async execute(run) {
        const cwd = await run.workspace.revalidate(plan.cwd);
        const launch = { file: executable.resolved, args: args.args, cwd: cwd.canonical, env: plan.env, stdin: args.stdin };
        const label = [args.command, ...args.args].join(' ').slice(0, labelLength);
        const started = await processes.start(processId, label, launch, request);
        return { text: `started ${processId} (pid ${started.pid})`, data: { process_id: processId, pid: started.pid } };
      },
    };
  },
});
