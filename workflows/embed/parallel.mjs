// Calls on one host are scheduled as workflow steps are: at most `maxParallel` execute at once,
// and calls that conflict on a resource keep their submission order.
// Run it from the repository root: node workflows/embed/parallel.mjs
import { createToolHost, defineTool, opaqueKey, shared, z } from 'rho-cli';

const log = [];
const pause = defineTool({
  name: 'pause',
  description: 'Waits a moment; declares shared access to one named key',
  schema: z.strictObject({ name: z.string() }),
  executionPolicy: 'resource-aware',
  async prepare({ name }) {
    return {
      requests: [],
      resources: [shared(opaqueKey('example', name))],
      async execute() {
        log.push(`start ${name}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
        log.push(`end ${name}`);
        return { text: name };
      },
    };
  },
});

const host = await createToolHost({ workspace: process.cwd(), tools: [pause], maxParallel: 2 });

// Three calls at once, two slots: a and b run together, c waits for the first free slot.
const results = await Promise.all(['a', 'b', 'c'].map((name) => host.invoke({ id: name, tool: 'pause', args: { name } })));
console.log(log.join(', '));
console.log(`results: ${results.map((result) => `${result.output.text} ${result.status}`).join(', ')}`);
