import { createHash } from 'node:crypto';
import { closeSync, constants, createReadStream, fstatSync, openSync, readFileSync } from 'node:fs';
import picomatch from 'picomatch';
import type { CapabilityRequest } from '../../host/capability.js';
import { ToolError } from '../../host/errors.js';
import { keyedHash, type DigestKey } from '../../host/keyed-digest.js';
import type { ResolvedPath, Workspace } from '../../host/workspace.js';
import { compileGlob } from '../../tools/files/glob.js';
import { fileBehindLink, TreeWalk } from '../../tools/files/walk.js';

/** Decides one read request: the refusal, or undefined when it is granted. */
export type ReadAuthorizer = (request: CapabilityRequest) => Promise<ToolError | undefined>;

/** What digesting a file set needs from the run's host. */
export interface FileSetAccess {
  workspace: Workspace;
  authorize: ReadAuthorizer;
  /** Paths a deny or ask read rule keeps back inside an authorized tree. */
  withheld(absolute: string): boolean;
  signal: AbortSignal;
  /** Keys the digests: a source may hold a secret (an env file), and its digest must not let anyone test guesses. */
  digestKey: DigestKey;
}

/**
 * Files up to this size are read whole and synchronously: a step's check reads a few small
 * files, and a thread-pool round trip for each costs more than the read. Larger ones are
 * streamed into the hash without holding up the event loop.
 */
const syncReadBytes = 1024 * 1024;

/**
 * Characters without which picomatch reads a pattern as a literal path (globs, braces, brackets,
 * extglobs, negation, escapes). Most `sources:` and `generates:` name files; answering those
 * without picomatch's scanner spares every up-to-date check a scan per pattern.
 */
const globSyntax = /[*?[\]{}()!+@\\]/;

/** Where a glob's files are read from: a literal file, or the tree under its static part. */
export function globBase(glob: string): { base: string; literal: boolean } {
  if (!globSyntax.test(glob)) return { base: glob, literal: true };
  const scanned = picomatch.scan(glob);
  return { base: scanned.isGlob ? scanned.base || '.' : glob, literal: !scanned.isGlob };
}

/** Why a glob cannot name files in the workspace, or undefined when it can. */
export function globProblem(glob: string): string | undefined {
  if (glob.startsWith('/') || /^[A-Za-z]:[\\/]/.test(glob)) return `"${glob}" is absolute; globs are relative to the workspace`;
  if (glob.split(/[\\/]/).includes('..')) return `"${glob}" leaves the workspace ("..")`;
  return undefined;
}

/**
 * What a file's content digests to: keyed (what the local records hold, so no guess of a secret
 * in it can be tested) and plain SHA-256 (what a cache key shared between machines is made of).
 */
export interface FileDigest {
  keyed: string;
  content: string;
}

/**
 * The digests of every file the globs match, by workspace-relative path. Each glob's base
 * is read through one authorized request (`read` of the file, or of the directory tree); a base
 * that does not exist matches nothing and asks for nothing.
 */
export async function digestFileSet(globs: readonly string[], access: FileSetAccess): Promise<Map<string, FileDigest> | ToolError> {
  const files = new Map<string, FileDigest>();
  for (const glob of globs) {
    const { base, literal } = globBase(glob);
    let resolved: ResolvedPath;
    try {
      resolved = await access.workspace.resolveForRead(base);
    } catch (error) {
      if (error instanceof ToolError && error.kind === 'not_found') continue;
      return error instanceof ToolError ? error : new ToolError('execution_failed', `${glob}: ${(error as Error).message}`, { cause: error });
    }
    if (resolved.scope !== 'workspace') return new ToolError('path_refused', `"${glob}" resolves outside the workspace; sources and generates stay inside it`);
    const directory = resolved.entry === 'directory';
    if (literal && !directory) {
      if (resolved.entry !== 'file') continue;
      const refusal = await access.authorize({ class: 'read', path: resolved, target: 'file' });
      if (refusal) return refusal;
      files.set(resolved.relativeToRoot(), await digestFile(resolved.canonical, access.digestKey));
      continue;
    }
    if (!directory) continue;
    const refusal = await access.authorize({ class: 'read', path: resolved, target: 'tree' });
    if (refusal) return refusal;
    const matches = compileGlob(literal ? `${glob.replace(/\/+$/, '')}/**` : glob);
    const prefix = resolved.relativeToRoot();
    const walk = new TreeWalk(resolved, { recursive: true, signal: access.signal, withheld: access.withheld });
    for await (const entry of walk.entries()) {
      const relative = prefix ? `${prefix}/${entry.relative}` : entry.relative;
      if (!matches(relative)) continue;
      if (entry.kind === 'file') files.set(relative, await digestFile(entry.absolute, access.digestKey));
      else if (entry.kind === 'symlink') {
        const target = await fileBehindLink(entry.absolute, resolved.root);
        if (target) files.set(relative, await digestFile(target.absolute, access.digestKey));
      }
    }
    if (walk.limitReached) return new ToolError('unsupported', `"${glob}" matches more entries than rho walks; narrow it`);
  }
  return files;
}

async function digestFile(absolute: string, key: DigestKey): Promise<FileDigest> {
  const keyed = keyedHash(key);
  const plain = createHash('sha256');
  const digests = (): FileDigest => ({ keyed: keyed.digest('hex'), content: plain.digest('hex') });
  try {
    // Non-blocking open: a file swapped for a FIFO since it was resolved must not stall the run.
    const fd = openSync(absolute, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const info = fstatSync(fd);
      if (!info.isFile()) throw new ToolError('path_refused', 'it is not a regular file');
      if (info.size <= syncReadBytes) {
        const bytes = readFileSync(fd);
        keyed.update(bytes);
        plain.update(bytes);
        return digests();
      }
    } finally {
      closeSync(fd);
    }
    for await (const chunk of createReadStream(absolute)) {
      keyed.update(chunk as Buffer);
      plain.update(chunk as Buffer);
    }
    return digests();
  } catch (cause) {
    throw new ToolError('execution_failed', `cannot read ${absolute} to check whether it changed: ${(cause as Error).message}`, { cause });
  }
}
