import { z } from 'zod';
import { shared } from '../host/resources.js';
import { defineBuiltinTool } from '../host/tool.js';
import { backgroundProcesses, processStatus } from './process/background.js';
import { backgroundStatusData } from './process/background-data.js';
import { backgroundProcessResource } from './process/resources.js';

const defaultReadBytes = 64 * 1024;
const maxReadBytes = 1024 * 1024;

const processOutputArgs = () =>
  z.strictObject({
    process_id: z.string().min(1).max(64).describe('Id returned by process_start'),
    stream: z.enum(['stdout', 'stderr']).default('stdout'),
    offset: z.number().int().min(0).default(0).describe('Byte offset to read from (the next_offset of the previous read)'),
    max_bytes: z.number().int().positive().max(maxReadBytes).default(defaultReadBytes),
    wait_for: z.string().min(1).max(1000).optional().describe('Wait until this text appears in the stream after offset, or the process ends (bounded by the step timeout)'),
  });

/** The step data the tool returns (`steps.<id>.data`). */
const processOutputData = () =>
  z.object({
    ...backgroundStatusData(),
    stream: z.enum(['stdout', 'stderr']),
    content: z.string(),
    offset: z.number().int(),
    next_offset: z.number().int(),
    dropped_bytes: z.number().int(),
    matched: z.boolean().optional(),
  });

export const processOutputTool = defineBuiltinTool({
  name: 'process_output',
  description: 'Read the bounded output of a background process from an offset, optionally waiting for a text to appear',
  origin: 'built-in',
  data: processOutputData,
  classes: [],
  executionPolicy: 'resource-aware',
  mode: 'async',
  schema: processOutputArgs,
  async prepare(args, ctx) {
    const processes = backgroundProcesses(ctx.session);
    return {
      requests: [],
      resources: [shared(backgroundProcessResource(args.process_id))],
      summary: `read ${args.stream} of ${args.process_id}`,
      async execute(run) {
        const entry = processes.get(args.process_id);
        const matched = args.wait_for === undefined ? undefined : await entry.waitFor(args.stream, args.wait_for, args.offset, run.signal);
        const slice = entry.output[args.stream].read(args.offset, args.max_bytes);
        return {
          text: slice.content,
          data: {
            ...processStatus(entry),
            stream: args.stream,
            content: slice.content,
            offset: slice.offset,
            next_offset: slice.nextOffset,
            dropped_bytes: slice.droppedBytes,
            ...(matched !== undefined && { matched }),
          },
        };
      },
    };
  },
});
