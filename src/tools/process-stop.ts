import { z } from 'zod';
import { exclusive } from '../host/resources.js';
import { defineBuiltinTool } from '../host/tool.js';
import { backgroundProcesses, processStatus } from './process/background.js';
import { backgroundStatusData } from './process/background-data.js';
import { backgroundProcessResource } from './process/resources.js';
import { undoneWritesDenial } from './process/write-denial.js';

const processStopArgs = () =>
  z.strictObject({
    process_id: z.string().min(1).max(64).describe('Id returned by process_start'),
  });

/** The step data the tool returns (`steps.<id>.data`). */
const processStopData = () => z.object({ ...backgroundStatusData(), was_running: z.boolean() });

export const processStopTool = defineBuiltinTool({
  name: 'process_stop',
  description: 'Stop a background process and everything it started (SIGTERM, then SIGKILL after a grace period)',
  origin: 'built-in',
  data: processStopData,
  classes: [],
  executionPolicy: 'resource-aware',
  schema: processStopArgs,
  async prepare(args, ctx) {
    const processes = backgroundProcesses(ctx.session);
    return {
      requests: [],
      resources: [exclusive(backgroundProcessResource(args.process_id))],
      summary: `stop ${args.process_id}`,
      async execute(run) {
        const entry = processes.get(args.process_id);
        const wasRunning = entry.state === 'running';
        await entry.stop();
        const status = processStatus(entry);
        const text = wasRunning ? `stopped ${entry.id}` : `${entry.id} had already ended (${status.state})`;
        const data = { ...status, was_running: wasRunning };
        if (entry.undoneWrites.length > 0)
          throw undoneWritesDenial(`background process ${entry.id} (${entry.label})`, entry.undoneWrites, run.workspace.root, data, { text, data });
        return { text, data };
      },
    };
  },
});
