import { z } from 'zod';
import { describeRequest } from '../host/capability.js';
import { exclusive } from '../host/resources.js';
import { defineBuiltinTool } from '../host/tool.js';
import { backgroundProcesses, validateProcessId } from './process/background.js';
import { commandShape, launchOptionsShape } from './process/launch-options.js';
import { launchFromRequest, planDirectProcess } from './process/launch-plan.js';
import { backgroundProcessResource, processStepResources } from './process/resources.js';

const labelLength = 100;

const processStartArgs = () => {
  const launchOptions = launchOptionsShape();
  return z.strictObject({
    ...commandShape(),
    name: z.string().optional().describe('Process id to use (default: a generated proc-N); lower case, digits, _ and -'),
    ...launchOptions,
    timeout: launchOptions.timeout.describe('Lifetime limit in seconds (default: until stopped or until the run ends)'),
    max_output_bytes: launchOptions.max_output_bytes.describe('Newest bytes of stdout and of stderr kept for process_output (each)'),
  });
};

/** The step data the tool returns (`steps.<id>.data`). */
const processStartData = () => z.object({ process_id: z.string(), pid: z.number().int() });

export const processStartTool = defineBuiltinTool({
  name: 'process_start',
  description: 'Start a background process (direct argv, own process group); read it with process_output, stop it with process_stop',
  origin: 'built-in',
  data: processStartData,
  classes: ['process'],
  executionPolicy: 'resource-aware',
  schema: processStartArgs,
  async prepare(args, ctx) {
    const processes = backgroundProcesses(ctx.session);
    if (args.name !== undefined) validateProcessId(args.name);
    // A wall limit of 0: the process lives until it is stopped or the run ends.
    const lifetimeMs = args.timeout === undefined ? 0 : Math.round(args.timeout * 1000);
    const { plan, request } = await planDirectProcess(args, ctx, lifetimeMs);
    const processId = args.name ?? processes.reserveId();
    return {
      requests: [request],
      resources: [exclusive(backgroundProcessResource(processId)), ...processStepResources(plan.cwd, plan.confinement)],
      summary: `start ${processId}: ${describeRequest(request)}`,
      confinement: plan.confinement,
      async execute(run) {
        const launch = await launchFromRequest(request, plan, args.stdin, run.workspace);
        const label = [args.command, ...args.args].join(' ').slice(0, labelLength);
        const started = await processes.start(processId, label, launch, request, run.host.masker);
        return { text: `started ${processId} (pid ${started.pid})`, data: { process_id: processId, pid: started.pid } };
      },
    };
  },
});
