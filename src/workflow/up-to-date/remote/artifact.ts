import { gunzipSync, gzipSync } from 'node:zlib';
import { Header, Parser, Pax, type ReadEntry } from 'tar';
import { z } from 'zod';
import { cacheFormatVersion } from '../cache-key.js';
import { ToolError } from '../../../host/errors.js';

/** What an artifact holds besides files: the step's recorded result, and the files it packs. */
const recordSchema = z.strictObject({
  format: z.literal(cacheFormatVersion),
  output: z.string(),
  data: z.unknown(),
  files: z.array(z.string()).max(10_000),
});
export type ArtifactRecord = z.infer<typeof recordSchema>;

/** One packed file: a workspace-relative path, its bytes, and whether it is executable. */
export interface ArtifactFile {
  path: string;
  bytes: Buffer;
  executable: boolean;
}

export interface Artifact {
  record: ArtifactRecord;
  files: readonly ArtifactFile[];
}

/** The largest artifact rho unpacks, and the most entries it reads: a cache is not trusted to be small. */
export const maxArtifactBytes = 256 * 1024 * 1024;
const maxEntries = 10_001;
const recordName = 'rho-record.json';
const filePrefix = 'files/';

/** Why a packed path may not be written into a workspace, or undefined when it may. */
export function packedPathProblem(packed: string): string | undefined {
  if (packed === '' || packed.length > 4096) return 'it is empty or too long';
  if (packed.includes('\0') || packed.includes('\\')) return 'it holds a NUL or a backslash';
  if (packed.startsWith('/') || /^[A-Za-z]:/.test(packed)) return 'it is absolute';
  const parts = packed.split('/');
  if (parts.includes('..')) return 'it leaves the workspace (..)';
  if (parts.some((part) => part === '' || part === '.')) return 'it is not in normal form';
  return undefined;
}

/** An artifact as a gzipped tar: the record first, then each file under `files/`, with no owner, time or link. */
export function packArtifact(artifact: Artifact): Buffer {
  const blocks: Buffer[] = [];
  const add = (name: string, bytes: Buffer, mode: number) => {
    const data = { path: name, mode, size: bytes.length, type: 'File' as const, mtime: new Date(0), uid: 0, gid: 0 };
    const header = new Header(data);
    if (header.encode()) {
      // A long or non-ASCII name goes in a pax extended header before the entry.
      blocks.push(new Pax(data).encode());
      header.encode();
    }
    blocks.push(header.block!, bytes, Buffer.alloc((512 - (bytes.length % 512)) % 512));
  };
  add(recordName, Buffer.from(JSON.stringify(artifact.record), 'utf8'), 0o644);
  for (const file of artifact.files) add(`${filePrefix}${file.path}`, file.bytes, file.executable ? 0o755 : 0o644);
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

/** Thrown for an artifact that is not one rho made, or that holds what may not be restored. */
export class ArtifactRefused extends ToolError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('path_refused', message, options);
  }
}

/**
 * Reads an artifact and refuses it whole when anything in it is not a regular file at a plain
 * relative path (a `..`, an absolute path, a symlink, a hard link, a device, a FIFO, a
 * directory entry, a duplicate), when it is larger than rho unpacks, or when its record does
 * not list exactly its files.
 */
export async function unpackArtifact(gzipped: Buffer): Promise<Artifact> {
  let tarBytes: Buffer;
  try {
    tarBytes = gunzipSync(gzipped, { maxOutputLength: maxArtifactBytes });
  } catch (cause) {
    throw new ArtifactRefused(`it is not a gzip stream rho can unpack (${(cause as Error).message})`, { cause });
  }
  const entries = await readEntries(tarBytes);
  const [first, ...rest] = entries;
  if (first?.path !== recordName) throw new ArtifactRefused(`it does not start with ${recordName}`);
  let record: ArtifactRecord;
  try {
    record = recordSchema.parse(JSON.parse(first.bytes.toString('utf8')));
  } catch (cause) {
    throw new ArtifactRefused(`its ${recordName} is not one this rho writes`, { cause });
  }
  const files: ArtifactFile[] = [];
  const seen = new Set<string>();
  for (const entry of rest) {
    if (!entry.path.startsWith(filePrefix)) throw new ArtifactRefused(`it holds ${JSON.stringify(entry.path)}, which is not under ${filePrefix}`);
    const relative = entry.path.slice(filePrefix.length);
    const problem = packedPathProblem(relative);
    if (problem) throw new ArtifactRefused(`it holds ${JSON.stringify(relative)}: ${problem}`);
    if (seen.has(relative)) throw new ArtifactRefused(`it holds ${JSON.stringify(relative)} twice`);
    seen.add(relative);
    files.push({ path: relative, bytes: entry.bytes, executable: (entry.mode & 0o111) !== 0 });
  }
  if (record.files.length !== files.length || record.files.some((file) => !seen.has(file))) throw new ArtifactRefused(`its files are not the ones its ${recordName} lists`);
  return { record, files };
}

interface TarEntry {
  path: string;
  mode: number;
  bytes: Buffer;
}

function readEntries(tarBytes: Buffer): Promise<TarEntry[]> {
  return new Promise((resolve, reject) => {
    const entries: TarEntry[] = [];
    let refusal: ArtifactRefused | undefined;
    const refuse = (reason: string) => {
      refusal ??= new ArtifactRefused(reason);
    };
    const parser = new Parser({
      strict: true,
      onwarn: (_code, message) => refuse(`it is not a well-formed tar (${String(message)})`),
      onReadEntry: (entry: ReadEntry) => {
        if (entry.type !== 'File' && entry.type !== 'OldFile') {
          refuse(`it holds ${JSON.stringify(entry.path)} of type ${entry.type}${entry.linkpath ? ` (to ${JSON.stringify(entry.linkpath)})` : ''}; only regular files are restored`);
          entry.resume();
          return;
        }
        if (entries.length >= maxEntries) {
          refuse(`it holds more than ${maxEntries - 1} files`);
          entry.resume();
          return;
        }
        const chunks: Buffer[] = [];
        entry.on('data', (chunk: Buffer) => chunks.push(chunk));
        entry.on('end', () => entries.push({ path: entry.path, mode: entry.mode ?? 0o644, bytes: Buffer.concat(chunks) }));
      },
    });
    parser.on('error', (error: Error) => refuse(`it is not a well-formed tar (${error.message})`));
    parser.on('close', () => (refusal ? reject(refusal) : resolve(entries)));
    parser.end(tarBytes);
  });
}
