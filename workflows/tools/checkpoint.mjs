// An exclusive module tool, loaded by workflows/parallel.yml.
//
// It defines `run` and no `prepare`, so it cannot declare what it will touch before it runs.
// rho therefore runs it alone, as a barrier in model order: every earlier step finishes before
// it starts, and no later step starts until it has finished. It asks for its write as it goes
// (`ctx.authorize`), so the workflow's policy still decides.
import { appendFile } from 'node:fs/promises';
import { defineTool, z } from 'rho-cli';

export default defineTool({
  name: 'checkpoint',
  description: 'Append a label to a log file; exclusive, so it runs alone between the steps before and after it',
  classes: ['write'],
  schema: z.strictObject({
    path: z.string().min(1).max(4096).describe('Log file to append to, relative to the workspace root; it must exist'),
    label: z.string().min(1).max(200).describe('Text of the line to append'),
  }),
  async run(args, ctx) {
    const resolved = await ctx.workspace.resolveForWrite(args.path);
    await ctx.authorize({ class: 'write', path: resolved });
    await ctx.workspace.revalidate(resolved);
    await appendFile(resolved.canonical, `${args.label}\n`);
    return { text: `appended "${args.label}" to ${args.path}`, data: { label: args.label } };
  },
});
