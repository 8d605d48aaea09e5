import { z } from 'zod';
import { displayPath, previewText, type WritePreview } from '../host/capability.js';
import { ToolError } from '../host/errors.js';
import { exclusive } from '../host/resources.js';
import { defineBuiltinTool } from '../host/tool.js';
import { applyEdits } from './files/apply-edits.js';
import { mebibyte, pathArgument } from './files/arguments.js';
import { rewriteFile } from './files/checked-rewrite.js';
import { looksBinary } from './files/content.js';
import { unifiedDiff } from './files/diff.js';
import { refuseEntry } from './files/entry-checks.js';

const editableBytes = 16 * mebibyte;

const editFileArgs = () =>
  z.strictObject({
    path: pathArgument('File to edit, relative to the workspace root (or absolute under a granted root)'),
    edits: z
      .array(
        z.strictObject({
          old: z.string().min(1).max(mebibyte).describe('Exact text to replace (must occur exactly once unless `all`)'),
          new: z.string().max(mebibyte).describe('Replacement text'),
          all: z.boolean().optional().describe('Replace every occurrence (default false)'),
        }),
      )
      .min(1)
      .max(100)
      .describe('Replacements, applied in order'),
  });

/** The file's text, refusing content that would not survive a decode/encode round trip. */
function editableText(bytes: Buffer, shown: string): string {
  if (looksBinary(bytes)) throw new ToolError('unsupported', `${shown} is a binary file; edit_file edits text only`, { details: { path: shown } });
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes)) {
    throw new ToolError('unsupported', `${shown} is not valid UTF-8; editing it as text would corrupt it`, { details: { path: shown } });
  }
  return text;
}

/** What an approval prompt shows of the edits: each old text and its replacement, as a diff reads. */
function editPreview(edits: readonly { old: string; new: string }[]): WritePreview {
  const marked = (sign: string, text: string) => text.split('\n').map((line) => `${sign} ${line}`);
  const preview = previewText('edit', edits.flatMap((edit) => [...marked('-', edit.old), ...marked('+', edit.new)]).join('\n'));
  return { ...preview, bytes: edits.reduce((total, edit) => total + Buffer.byteLength(edit.new, 'utf8'), 0) };
}

/** The step data the tool returns (`steps.<id>.data`). */
const editFileData = () => z.object({ path: z.string(), replacements: z.number().int() });

export const editFileTool = defineBuiltinTool({
  name: 'edit_file',
  description: 'Replace exact text in a file; fails if an `old` text is missing or ambiguous, or if the file changed while it was being edited (conflict)',
  origin: 'built-in',
  data: editFileData,
  classes: ['read', 'write'],
  executionPolicy: 'resource-aware',
  schema: editFileArgs,
  async prepare(args, ctx) {
    const resolved = await ctx.workspace.resolveForWrite(args.path);
    const shown = displayPath(resolved);
    if (resolved.state === 'missing') {
      throw new ToolError('not_found', `${shown} does not exist; use write_file to create it`, { details: { path: shown } });
    }
    refuseEntry(resolved, shown, 'file', 'edit_file edits files only');
    return {
      // Editing reveals the old content (errors, diff), so it needs read as well as write.
      requests: [
        { class: 'read', path: resolved, target: 'file' },
        { class: 'write', path: resolved, preview: editPreview(args.edits) },
      ],
      resources: [exclusive({ kind: 'path', path: resolved.canonical })],
      summary: `edit ${shown}`,
      async execute(ectx) {
        await ectx.workspace.revalidate(resolved);
        let replacements = 0;
        const { before, after } = await rewriteFile(resolved, shown, editableBytes, (old) => {
          const edited = applyEdits(editableText(old, shown), args.edits, shown);
          replacements = edited.replacements;
          return Buffer.from(edited.text, 'utf8');
        });
        return {
          text: `edited ${shown} (${replacements} replacement${replacements === 1 ? '' : 's'})`,
          data: { path: shown, replacements },
          metadata: { diff: unifiedDiff(shown, before, after) },
        };
      },
    };
  },
});
