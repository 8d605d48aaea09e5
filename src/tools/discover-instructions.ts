import { z } from 'zod';
import { shared } from '../host/resources.js';
import { defineBuiltinTool } from '../host/tool.js';
import { discoveryLimits, findInstructionFiles, instructionFileNames } from './instructions/discovery.js';
import { readBoundedText } from './instructions/read-text.js';

export const maxInstructionBytes = 64 * 1024;

const discoverInstructionsArgs = () =>
  z.strictObject({
    max_depth: z.number().int().min(0).max(discoveryLimits.maxDepth).default(discoveryLimits.defaultDepth).describe('Directory levels below the root to search'),
    max_files: z.number().int().min(1).max(discoveryLimits.maxFiles).default(discoveryLimits.defaultFiles),
  });

/** The step data the tool returns (`steps.<id>.data`). */
const discoverInstructionsData = () => z.object({ sources: z.array(z.object({ path: z.string(), content: z.string(), truncated: z.boolean() })) });

export const discoverInstructionsTool = defineBuiltinTool({
  name: 'discover_instructions',
  description:
    `Find instruction files (${instructionFileNames.join(', ')}) from the workspace root down, skipping dot-directories and ` +
    'node_modules; each file is authorized as instructions before it is read. Returns {sources: [{path, content, truncated}]}.',
  origin: 'built-in',
  data: discoverInstructionsData,
  classes: ['instructions'],
  executionPolicy: 'resource-aware',
  schema: discoverInstructionsArgs,
  async prepare(args, ctx) {
    const discovery = await findInstructionFiles(ctx.workspace, { maxDepth: args.max_depth, maxFiles: args.max_files });
    const paths = discovery.files.map((file) => file.relativeToRoot());
    return {
      requests: discovery.files.map((file) => ({ class: 'instructions' as const, path: file })),
      resources: discovery.files.map((file) => shared({ kind: 'path', path: file.canonical })),
      summary: `read ${paths.length} instruction file(s)`,
      async execute(execution) {
        const sources = [];
        for (const file of discovery.files) {
          const checked = await execution.workspace.revalidate(file);
          const { text, truncated } = await readBoundedText(checked, maxInstructionBytes);
          sources.push({ path: checked.relativeToRoot(), content: text, truncated });
        }
        return {
          text: paths.length === 0 ? 'no instruction files found' : `included: ${paths.join(', ')}`,
          data: { sources },
          metadata: { sources: paths, skipped: discovery.skipped, limited: discovery.limited },
        };
      },
    };
  },
});
