import { lstat, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from './errors.js';

export type PathScope = 'workspace' | 'granted_root' | 'unrestricted';
export type PathState = 'existing' | 'missing';
export type EntryKind = 'file' | 'directory' | 'other';

/** Longest path rho accepts from a tool argument. */
export const maxPathLength = 4096;

const constructionToken = Symbol('ResolvedPath');

/**
 * A path that the workspace has resolved and checked. Only `Workspace.resolveForRead` and
 * `Workspace.resolveForWrite` can create one, so a tool holding a ResolvedPath knows it was checked.
 */
export class ResolvedPath {
  /** The path as the caller wrote it. */
  readonly requested: string;
  /** Lexical absolute form of the request (no symlinks followed): matched by deny rules "as written". */
  readonly lexical: string;
  /** Canonical target (existing) or canonical nearest existing parent joined with the missing rest. */
  readonly canonical: string;
  /** Canonical nearest existing directory (the target itself when it exists). */
  readonly existingAncestor: string;
  readonly scope: PathScope;
  /** The canonical root the path lies under ('/' for unrestricted). */
  readonly root: string;
  readonly state: PathState;
  readonly entry: EntryKind | undefined;
  readonly identity: FileIdentity | undefined;

  constructor(token: symbol, fields: Omit<ResolvedPath, 'relativeToRoot'>) {
    if (token !== constructionToken) throw new Error('ResolvedPath is created only by Workspace');
    this.requested = fields.requested;
    this.lexical = fields.lexical;
    this.canonical = fields.canonical;
    this.existingAncestor = fields.existingAncestor;
    this.scope = fields.scope;
    this.root = fields.root;
    this.state = fields.state;
    this.entry = fields.entry;
    this.identity = fields.identity;
    Object.freeze(this);
  }

  /** Canonical path relative to its root, with '/' separators ('' for the root itself). */
  relativeToRoot(): string {
    return path.relative(this.root, this.canonical).split(path.sep).join('/');
  }
}

export interface FileIdentity {
  dev: number;
  ino: number;
}

export interface WorkspaceOptions {
  grantedRoots?: readonly string[];
  unrestricted?: boolean;
}

function refuse(requested: string, reason: string): ToolError {
  return new ToolError('path_refused', `path ${JSON.stringify(requested)} refused: ${reason}`, {
    details: { path: requested, reason },
  });
}

async function canonicalDirectory(dir: string): Promise<string> {
  if (!path.isAbsolute(dir)) throw refuse(dir, 'a workspace root must be an absolute path');
  if (dir.includes('\0')) throw refuse(dir, 'NUL byte in path');
  if (dir.split(/[\\/]/).includes('..')) throw refuse(dir, 'parent traversal in a workspace root');
  let canonical: string;
  try {
    canonical = await realpath(dir);
  } catch (cause) {
    throw new ToolError('not_found', `workspace root ${dir} does not exist`, { cause });
  }
  if (!(await stat(canonical)).isDirectory()) throw refuse(dir, 'a workspace root must be a directory');
  return canonical;
}

function isWithin(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * The directories a run may touch and the rules for naming paths inside them. Resolution
 * decides scope; it grants nothing — reads and writes still need policy rules.
 */
export class Workspace {
  private constructor(
    readonly root: string,
    readonly grantedRoots: readonly string[],
    readonly unrestricted: boolean,
  ) {}

  static async create(root: string, options: WorkspaceOptions = {}): Promise<Workspace> {
    const canonicalRoot = await canonicalDirectory(root);
    const granted = await Promise.all((options.grantedRoots ?? []).map(canonicalDirectory));
    return new Workspace(canonicalRoot, granted, options.unrestricted ?? false);
  }

  async withGrantedRoot(dir: string): Promise<Workspace> {
    return new Workspace(this.root, [...this.grantedRoots, await canonicalDirectory(dir)], this.unrestricted);
  }

  withUnrestrictedFileAccess(): Workspace {
    return new Workspace(this.root, this.grantedRoots, true);
  }

  /** Resolves an existing path for reading; symlinks are followed and must stay in scope. */
  async resolveForRead(requested: string): Promise<ResolvedPath> {
    const lexical = this.lexicalPath(requested);
    let canonical: string;
    try {
      canonical = await realpath(lexical);
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw refuse(requested, 'symlink loop');
      throw new ToolError('not_found', `path ${JSON.stringify(requested)} does not exist`, { cause, details: { path: requested } });
    }
    return this.build(requested, lexical, canonical, canonical, 'existing');
  }

  /** Resolves a path for writing: the canonical existing target, or its nearest existing parent. */
  async resolveForWrite(requested: string): Promise<ResolvedPath> {
    const lexical = this.lexicalPath(requested);
    const link = await lstat(lexical).catch(() => undefined);
    if (link?.isSymbolicLink()) {
      const target = await realpath(lexical).catch((cause: NodeJS.ErrnoException) => {
        if (cause.code === 'ELOOP') throw refuse(requested, 'symlink loop');
        throw refuse(requested, 'dangling symlink: writing through it would create a file elsewhere');
      });
      return this.build(requested, lexical, target, target, 'existing');
    }
    if (link) {
      const canonical = await realpath(lexical);
      return this.build(requested, lexical, canonical, canonical, 'existing');
    }
    const missing: string[] = [];
    let cursor = lexical;
    for (;;) {
      missing.unshift(path.basename(cursor));
      cursor = path.dirname(cursor);
      const entry = await lstat(cursor).catch(() => undefined);
      if (entry) break;
    }
    let ancestor: string;
    try {
      ancestor = await realpath(cursor);
    } catch (cause) {
      throw refuse(requested, (cause as NodeJS.ErrnoException).code === 'ELOOP' ? 'symlink loop' : 'dangling symlink in parent');
    }
    if (!(await stat(ancestor)).isDirectory()) throw refuse(requested, `${cursor} is not a directory`);
    return this.build(requested, lexical, path.join(ancestor, ...missing), ancestor, 'missing');
  }

  /**
   * Re-resolves a path right before I/O and refuses it if anything changed since it was
   * resolved: canonical target, parent chain, scope, or existing/missing state.
   */
  async revalidate(resolved: ResolvedPath): Promise<ResolvedPath> {
    const again =
      resolved.state === 'existing' ? await this.resolveForRead(resolved.requested) : await this.resolveForWrite(resolved.requested);
    const changed =
      again.canonical !== resolved.canonical ||
      again.existingAncestor !== resolved.existingAncestor ||
      again.scope !== resolved.scope ||
      again.state !== resolved.state ||
      (resolved.identity !== undefined &&
        (again.identity?.dev !== resolved.identity.dev || again.identity?.ino !== resolved.identity.ino));
    if (changed) throw refuse(resolved.requested, 'the path changed on disk after it was authorized');
    return resolved;
  }

  /** The scope a canonical path falls in, or undefined when it is outside every root. */
  scopeOf(canonical: string): { scope: PathScope; root: string } | undefined {
    if (isWithin(this.root, canonical)) return { scope: 'workspace', root: this.root };
    const granted = this.grantedRoots.find((root) => isWithin(root, canonical));
    if (granted) return { scope: 'granted_root', root: granted };
    if (this.unrestricted) return { scope: 'unrestricted', root: path.parse(canonical).root };
    return undefined;
  }

  private lexicalPath(requested: string): string {
    if (typeof requested !== 'string' || requested.length === 0) throw refuse(String(requested), 'empty path');
    if (requested.length > maxPathLength) throw refuse(requested.slice(0, 64) + '…', `longer than ${maxPathLength} characters`);
    if (requested.includes('\0')) throw refuse(requested, 'NUL byte in path');
    const components = requested.split('/');
    if (!this.unrestricted && components.includes('..')) throw refuse(requested, 'parent traversal (..) is not allowed');
    const lexical = path.isAbsolute(requested) ? path.normalize(requested) : path.join(this.root, requested);
    if (!this.unrestricted && !this.scopeOfLexical(lexical)) throw refuse(requested, 'outside the workspace and every granted root');
    return lexical;
  }

  private scopeOfLexical(lexical: string): boolean {
    return isWithin(this.root, lexical) || this.grantedRoots.some((root) => isWithin(root, lexical));
  }

  private async build(
    requested: string,
    lexical: string,
    canonical: string,
    existingAncestor: string,
    state: PathState,
  ): Promise<ResolvedPath> {
    const placed = this.scopeOf(canonical);
    if (!placed) throw refuse(requested, `resolves to ${canonical}, outside the workspace and every granted root`);
    let entry: EntryKind | undefined;
    let identity: FileIdentity | undefined;
    if (state === 'existing') {
      const info = await stat(canonical);
      entry = info.isFile() ? 'file' : info.isDirectory() ? 'directory' : 'other';
      identity = { dev: info.dev, ino: info.ino };
    }
    return new ResolvedPath(constructionToken, {
      requested,
      lexical,
      canonical,
      existingAncestor,
      scope: placed.scope,
      root: placed.root,
      state,
      entry,
      identity,
    });
  }
}
