// Embedding rho's ToolHost in a program of your own: the same policy path as `rho run`,
// without YAML or the CLI. Run it from the repository root: node workflows/embed/embed.mjs
// The guide for embedders is docs/embedding.md.
import { builtinTools, createToolHost } from 'rho-cli';

const host = await createToolHost({
  workspace: process.cwd(),
  policy: { allow: ['read(package.json)'] },
  tools: builtinTools(),
});

// invoke: one call to completion.
const allowed = await host.invoke({ id: 'read-1', tool: 'read_file', args: { path: 'package.json' } });
console.log(`read package.json: ${allowed.status}, name = ${JSON.parse(allowed.output.data.content).name}`);

const denied = await host.invoke({ id: 'read-2', tool: 'read_file', args: { path: 'README.md' } });
console.log(`read README.md: ${denied.status} (${denied.error.kind})`);

// start: a run with an event stream and a final result.
const run = host.start({ id: 'echo-1', tool: 'echo', args: { value: { hello: 'world' } } });
for await (const event of run.events()) console.log(`event: ${event.type}`);
const result = await run.result;
console.log(`echo: ${result.status}, data = ${JSON.stringify(result.output.data)}`);
console.log(`audit: ${JSON.stringify(host.auditSnapshot())}`);
