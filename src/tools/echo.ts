import { z } from 'zod';
import { defineTool } from '../host/tool.js';

const echoArgs = z.strictObject({
  value: z.json().describe('Any JSON value; returned unchanged as the step data'),
});

export const echoTool = defineTool({
  name: 'echo',
  description: 'Return the given value unchanged (no capability; for wiring steps together and tests)',
  origin: 'built-in',
  classes: [],
  executionPolicy: 'resource-aware',
  schema: echoArgs,
  async prepare(args) {
    return {
      requests: [],
      resources: [],
      async execute() {
        const text = typeof args.value === 'string' ? args.value : JSON.stringify(args.value);
        return { text, data: args.value };
      },
    };
  },
});
