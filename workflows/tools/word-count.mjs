// A module tool: `tools: [{ module: ./tools/word-count.mjs }]` in a workflow loads it.
//
// It is trusted host code: it runs inside rho's process, and the `classes` below are a
// declaration people can inspect (`rho tools`), not a sandbox. What keeps it honest is that it
// asks for every path through the workspace and declares the read as a capability request, so
// the workflow's policy decides, exactly as for the built-in read_file.
//
// `import ... from 'rho-cli'` resolves to the built package (here through the package's own
// "exports", elsewhere through node_modules/rho-cli). rho exports the zod it validates with, so a
// tool's schema needs no zod install of its own.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ToolError, Workspace, defineTool, shared, z } from 'rho-cli';

/** Largest file this tool reads. */
const maxBytes = 1024 * 1024;

/** Lines, words and characters of a text, as `wc` counts them (a last line without newline counts). */
export function countText(text) {
  const lines = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  const words = text.split(/\s+/).filter(Boolean).length;
  return { lines, words, characters: [...text].length };
}

async function readCounted(workspace, resolved, shown) {
  await workspace.revalidate(resolved);
  const bytes = await readFile(resolved.canonical);
  if (bytes.length > maxBytes) throw new ToolError('unsupported', `${shown} is larger than ${maxBytes} bytes`);
  return countText(bytes.toString('utf8'));
}

export default defineTool({
  name: 'word_count',
  description: 'Count the lines, words and characters of a text file in the workspace',
  classes: ['read'],
  executionPolicy: 'resource-aware',
  schema: z.strictObject({
    path: z.string().min(1).max(4096).describe('Text file to count, relative to the workspace root'),
  }),
  async prepare(args, ctx) {
    const resolved = await ctx.workspace.resolveForRead(args.path);
    const shown = resolved.relativeToRoot() || args.path;
    return {
      requests: [{ class: 'read', path: resolved, target: 'file' }],
      resources: [shared({ kind: 'path', path: resolved.canonical })],
      summary: `count ${shown}`,
      async execute(run) {
        const counts = await readCounted(run.workspace, resolved, shown);
        return { text: `${counts.lines} lines, ${counts.words} words, ${counts.characters} characters in ${shown}`, data: { path: shown, ...counts } };
      },
    };
  },
  // `rho tools -f workflows/module-tool.yml --selftest` runs this in a fresh temporary directory.
  async selftest(tempDir) {
    const workspace = await Workspace.create(tempDir);
    const { writeFile } = await import('node:fs/promises');
    await writeFile(path.join(tempDir, 'sample.txt'), 'one two\nthree\n');
    const counts = await readCounted(workspace, await workspace.resolveForRead('sample.txt'), 'sample.txt');
    if (counts.lines !== 2 || counts.words !== 3 || counts.characters !== 14) {
      throw new Error(`counted ${JSON.stringify(counts)} in a sample of 2 lines, 3 words, 14 characters`);
    }
  },
});
