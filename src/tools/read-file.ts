import { z } from 'zod';
import { displayPath } from '../host/capability.js';
import { imageFromBytes } from '../host/content.js';
import { ToolError } from '../host/errors.js';
import { shared } from '../host/resources.js';
import { defineBuiltinTool } from '../host/tool.js';
import { mebibyte, pathArgument } from './files/arguments.js';
import { imageMediaType, looksBinary, sniffLength } from './files/content.js';
import { refuseEntry } from './files/entry-checks.js';
import { readLineWindow } from './files/line-window.js';
import { openResolvedFile, readHead, readWhole } from './files/open-file.js';

const defaultTextBytes = 256 * 1024;
const defaultImageBytes = 5 * mebibyte;
const maxLineNumber = 100_000_000;

const readFileArgs = () =>
  z.strictObject({
    path: pathArgument('File to read, relative to the workspace root (or absolute under a granted root)'),
    offset: z.int().min(1).max(maxLineNumber).optional().describe('First line to return, 1-based (default 1)'),
    limit: z.int().min(1).max(maxLineNumber).optional().describe('Number of lines to return (default: all, up to max_bytes)'),
    max_bytes: z
      .int()
      .min(1)
      .max(10 * mebibyte)
      .optional()
      .describe(`Byte cap: text is cut at a line boundary (default ${defaultTextBytes}); larger images are refused (default ${defaultImageBytes})`),
  });

/** The step data the tool returns (`steps.<id>.data`). */
const readFileData = () =>
  z.object({
    path: z.string(),
    content: z.string(),
    truncated: z.boolean(),
    next_offset: z.number().int().optional().describe('the line to read from next, when truncated'),
    media_type: z.string().optional().describe('for images'),
    bytes: z.number().int().optional().describe('for images'),
  });

export const readFileTool = defineBuiltinTool({
  name: 'read_file',
  description: 'Read a text file (optionally a range of lines, within a byte cap), or an image (PNG, JPEG, GIF, WebP) as an image',
  origin: 'built-in',
  data: readFileData,
  classes: ['read'],
  executionPolicy: 'resource-aware',
  schema: readFileArgs,
  async prepare(args, ctx) {
    const resolved = await ctx.workspace.resolveForRead(args.path);
    const shown = displayPath(resolved);
    refuseEntry(resolved, shown, 'file', 'use list_files for a directory');
    return {
      requests: [{ class: 'read', path: resolved, target: 'file' }],
      resources: [shared({ kind: 'path', path: resolved.canonical })],
      summary: `read ${shown}`,
      async execute(ectx) {
        await ectx.workspace.revalidate(resolved);
        const opened = await openResolvedFile(resolved, shown);
        try {
          const head = await readHead(opened, sniffLength);
          const mediaType = imageMediaType(head);
          if (mediaType) {
            const bytes = await readWhole(opened, args.max_bytes ?? defaultImageBytes, shown);
            return {
              text: `${shown}: ${mediaType} image, ${bytes.length} bytes`,
              data: { path: shown, content: '', truncated: false, media_type: mediaType, bytes: bytes.length },
              images: [imageFromBytes(mediaType, bytes)],
            };
          }
          if (looksBinary(head)) {
            throw new ToolError('unsupported', `${shown} is a binary file (it contains NUL bytes); read_file returns text and PNG/JPEG/GIF/WebP images only`, {
              details: { path: shown },
            });
          }
          const window = await readLineWindow(opened.handle, {
            offset: args.offset ?? 1,
            limit: args.limit,
            maxBytes: args.max_bytes ?? defaultTextBytes,
          });
          return {
            text: window.content,
            data: {
              path: shown,
              content: window.content,
              truncated: window.truncated,
              ...(window.nextOffset !== undefined && { next_offset: window.nextOffset }),
            },
          };
        } finally {
          await opened.handle.close();
        }
      },
    };
  },
});
