import { z } from 'zod';
import { defineBuiltinTool } from '../host/tool.js';

const echoArgs = () =>
  z.strictObject({
    value: z.json().describe('Any JSON value; returned unchanged as the step data'),
  });

/** The step data the tool returns (`steps.<id>.data`). */
const echoData = () => z.unknown().describe('the value, unchanged');

export const echoTool = defineBuiltinTool({
  name: 'echo',
  description: 'Show a value and return it unchanged as the step data (no capability; for wiring steps together and tests)',
  origin: 'built-in',
  data: echoData,
  classes: [],
  executionPolicy: 'resource-aware',
  schema: echoArgs,
  async prepare(args) {
    return {
      requests: [],
      resources: [],
      async execute(ctx) {
        const text = typeof args.value === 'string' ? args.value : JSON.stringify(args.value);
        ctx.progress({ message: text });
        return { text, data: args.value };
      },
    };
  },
});
