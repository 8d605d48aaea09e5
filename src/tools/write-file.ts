import path from 'node:path';
import { z } from 'zod';
import { maxArgumentBytes } from '../host/arguments.js';
import { displayPath, previewText } from '../host/capability.js';
import { ToolError } from '../host/errors.js';
import { exclusive } from '../host/resources.js';
import { defineBuiltinTool } from '../host/tool.js';
import type { ResolvedPath } from '../host/workspace.js';
import { mebibyte, pathArgument } from './files/arguments.js';
import { rewriteFile } from './files/checked-rewrite.js';
import { diffableBytes, unifiedDiff } from './files/diff.js';
import { refuseEntry } from './files/entry-checks.js';
import type { CheckedDirectory } from './files/checked-directory.js';
import { firstMissingDirectory, openTargetDirectory, parentIsMissing } from './files/missing-directories.js';
import { openFileIn, readWhole } from './files/open-file.js';
import { stageFile } from './files/staged-file.js';

/** Largest existing file `append` rewrites (appending goes through a staged copy, like every write). */
const appendableBytes = 64 * mebibyte;

const writeFileArgs = () =>
  z.strictObject({
    path: pathArgument('File to write, relative to the workspace root (or absolute under a granted root)'),
    content: z.string().max(maxArgumentBytes).describe('Text to write (UTF-8)'),
    mode: z
      .enum(['create', 'overwrite', 'append'])
      .optional()
      .describe('create: fail if the file exists; overwrite (default): create or replace; append: add to the end (creating it if missing)'),
    create_dirs: z.boolean().optional().describe('Create missing parent directories (default false)'),
  });

type WriteMode = NonNullable<z.infer<ReturnType<typeof writeFileArgs>>['mode']>;

/** What was there before an overwrite, for the diff and to keep the file's permissions. */
async function previousFile(directory: CheckedDirectory, resolved: ResolvedPath, shown: string): Promise<{ before: Buffer | undefined; mode: number }> {
  const opened = await openFileIn(directory, path.basename(resolved.canonical), resolved.identity, shown);
  try {
    const before = opened.info.size <= diffableBytes ? await readWhole(opened, diffableBytes, shown) : undefined;
    return { before, mode: opened.info.mode & 0o7777 };
  } finally {
    await opened.handle.close();
  }
}

/** Writes the new content the way `mode` asks, through the checked target directory, and returns the diff to show. */
async function writeContent(resolved: ResolvedPath, shown: string, mode: WriteMode, content: Buffer): Promise<string> {
  if (resolved.state === 'existing' && mode === 'append') {
    const { before, after } = await rewriteFile(resolved, shown, appendableBytes, (old) => Buffer.concat([old, content]));
    return unifiedDiff(shown, before, after);
  }
  const name = path.basename(resolved.canonical);
  const directory = await openTargetDirectory(resolved, shown);
  try {
    if (resolved.state === 'existing') {
      const previous = await previousFile(directory, resolved, shown);
      const staged = await stageFile(directory, name, content, previous.mode);
      await staged.replace();
      return previous.before ? unifiedDiff(shown, previous.before, content) : `(no diff for ${shown}: the old content is larger than ${diffableBytes} bytes)`;
    }
    const staged = await stageFile(directory, name, content, undefined);
    // A file that appeared while the call waited is never clobbered, whatever the mode.
    await staged.createNew(shown);
    return unifiedDiff(shown, undefined, content);
  } finally {
    await directory.close();
  }
}

/** The step data the tool returns (`steps.<id>.data`). */
const writeFileData = () => z.object({ path: z.string(), bytes: z.number().int() });

export const writeFileTool = defineBuiltinTool({
  name: 'write_file',
  description: 'Create, overwrite or append to a text file atomically (temp file + rename); the result metadata holds a unified diff',
  origin: 'built-in',
  data: writeFileData,
  classes: ['write'],
  executionPolicy: 'resource-aware',
  schema: writeFileArgs,
  async prepare(args, ctx) {
    const resolved = await ctx.workspace.resolveForWrite(args.path);
    const shown = displayPath(resolved);
    const mode = args.mode ?? 'overwrite';
    refuseEntry(resolved, shown, 'file', 'write_file writes files only');
    if (mode === 'create' && resolved.state === 'existing') {
      throw new ToolError('conflict', `${shown} already exists; use mode "overwrite" to replace it or "append" to add to it`, { details: { path: shown } });
    }
    if (parentIsMissing(resolved) && !args.create_dirs) {
      throw new ToolError('not_found', `the parent directory of ${shown} does not exist; pass create_dirs: true to create it`, {
        details: { path: shown },
      });
    }
    const content = Buffer.from(args.content, 'utf8');
    return {
      requests: [{ class: 'write', path: resolved, preview: previewText(mode, args.content) }],
      resources: [
        exclusive({ kind: 'path', path: resolved.canonical }),
        ...(parentIsMissing(resolved) ? [exclusive({ kind: 'path', path: firstMissingDirectory(resolved) })] : []),
      ],
      summary: `${mode === 'append' ? 'append to' : 'write'} ${shown}`,
      async execute(ectx) {
        await ectx.workspace.revalidate(resolved);
        const diff = await writeContent(resolved, shown, mode, content);
        const verb = resolved.state === 'missing' ? 'created' : mode === 'append' ? 'appended to' : 'overwrote';
        return {
          text: `${verb} ${shown} (${content.length} bytes written)`,
          data: { path: shown, bytes: content.length },
          metadata: { diff },
        };
      },
    };
  },
});
