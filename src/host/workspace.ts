import { lstat, realpath, stat } from 'node:fs/promises';
import { lstatSync, realpathSync, type Stats } from 'node:fs';
import path from 'node:path';
import { ToolError } from './errors.js';
import { missingBelow } from './disk-paths.js';
import { pathTextProblem, quotePath } from './path-text.js';
import { isWithin } from './path-within.js';

export { isWithin } from './path-within.js';

export { maxPathLength } from './path-text.js';

export type PathScope = 'workspace' | 'granted_root' | 'unrestricted';
export type PathState = 'existing' | 'missing';
export type EntryKind = 'file' | 'directory' | 'other';
/** Which resolver produced a path; `revalidate` repeats the same one. */
export type PathPurpose = 'read' | 'write';

export interface FileIdentity {
  dev: number;
  ino: number;
}

const constructionToken = Symbol('ResolvedPath');

type ResolvedPathFields = Omit<ResolvedPath, 'relativeToRoot'>;

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
  readonly purpose: PathPurpose;
  /** What the target is; undefined when it is missing. */
  readonly entry: EntryKind | undefined;
  /** Device and inode of the target; undefined when it is missing. */
  readonly identity: FileIdentity | undefined;
  /**
   * How many names (hard links) a regular file has; undefined for anything else. A file with
   * more than one may also be reachable under a name a deny rule covers, which no check of this
   * name can see.
   */
  readonly links: number | undefined;
  /** Device and inode of `existingAncestor`: a directory swapped for another is noticed. */
  readonly ancestorIdentity: FileIdentity;

  constructor(token: symbol, fields: ResolvedPathFields) {
    if (token !== constructionToken) throw new ToolError('internal', 'ResolvedPath is created only by Workspace');
    this.requested = fields.requested;
    this.lexical = fields.lexical;
    this.canonical = fields.canonical;
    this.existingAncestor = fields.existingAncestor;
    this.scope = fields.scope;
    this.root = fields.root;
    this.state = fields.state;
    this.purpose = fields.purpose;
    this.entry = fields.entry;
    this.identity = fields.identity;
    this.links = fields.links;
    this.ancestorIdentity = fields.ancestorIdentity;
    Object.freeze(this);
  }

  /** Canonical path relative to its root, with '/' separators ('' for the root itself). */
  relativeToRoot(): string {
    return path.relative(this.root, this.canonical).split(path.sep).join('/');
  }
}

export interface WorkspaceOptions {
  grantedRoots?: readonly string[];
  unrestricted?: boolean;
  /**
   * Directories of the host's own (rho's state and caches), absolute and canonical: no path in
   * them resolves, whatever the roots and rules, and confined processes do not see them.
   */
  privatePaths?: readonly string[];
}

/** A root as the host named it and as it really is; requests may use either spelling. */
interface Root {
  canonical: string;
  given: string;
}

const fixes = {
  outside: 'name a path inside the workspace, or add its directory to policy.granted_roots (it then also needs the "outside" rule)',
  parent: 'name the path from the workspace root without ".." components',
} as const;

function refuse(requested: string, reason: string, fix?: string): ToolError {
  return new ToolError('path_refused', `path ${quotePath(requested)} refused: ${reason}${fix ? `; ${fix}` : ''}`, {
    details: { path: requested.slice(0, 1024), reason },
  });
}

function notFound(requested: string, reason: string, cause: unknown): ToolError {
  return new ToolError('not_found', `path ${quotePath(requested)} ${reason}`, { cause, details: { path: requested.slice(0, 1024), reason } });
}

function errorCode(cause: unknown): string | undefined {
  return (cause as NodeJS.ErrnoException | undefined)?.code;
}

/** Turns a failed lookup into the typed error a person can act on. */
function lookupFailure(requested: string, cause: unknown): ToolError {
  switch (errorCode(cause)) {
    case 'ENOENT':
      return notFound(requested, 'does not exist', cause);
    case 'ENOTDIR':
      return notFound(requested, 'does not exist (a parent component is not a directory)', cause);
    case 'ELOOP':
      return refuse(requested, 'symlink loop');
    case 'ENAMETOOLONG':
      return refuse(requested, 'a component or the resolved path is too long for the file system');
    case 'EACCES':
    case 'EPERM':
      return refuse(requested, 'permission denied by the file system');
    default:
      return refuse(requested, `cannot be resolved (${errorCode(cause) ?? String(cause)})`);
  }
}

function identityOf(info: Stats): FileIdentity {
  return { dev: info.dev, ino: info.ino };
}

function sameIdentity(a: FileIdentity | undefined, b: FileIdentity | undefined): boolean {
  return a?.dev === b?.dev && a?.ino === b?.ino;
}

function entryKind(info: Stats): EntryKind {
  return info.isFile() ? 'file' : info.isDirectory() ? 'directory' : 'other';
}

/** Separators of the native platform: on POSIX a backslash is an ordinary file-name character. */
const separator = path.sep === '\\' ? /[\\/]/ : /\//;
const trailingSeparators = path.sep === '\\' ? /[\\/]+$/ : /\/+$/;

/** The two kinds of root a workspace has, as messages name them. */
type RootKind = 'workspace root' | 'granted root';

async function parseRoot(dir: string, kind: RootKind = 'workspace root'): Promise<Root> {
  if (typeof dir !== 'string' || dir.length === 0) throw refuse(String(dir), `a ${kind} must be a non-empty path`);
  if (dir.includes('\0')) throw refuse(dir, 'NUL byte in path');
  if (!path.isAbsolute(dir)) throw refuse(dir, `a ${kind} must be an absolute path`);
  if (dir.split(separator).includes('..')) throw refuse(dir, `parent traversal in a ${kind}`, 'name the directory without ".." components');
  let canonical: string;
  try {
    canonical = await realpath(dir);
  } catch (cause) {
    throw errorCode(cause) === 'ENOENT' ? notFound(dir, `does not exist (${kind})`, cause) : lookupFailure(dir, cause);
  }
  if (!(await stat(canonical)).isDirectory()) throw refuse(dir, `a ${kind} must be a directory`);
  return { canonical, given: path.resolve(dir) };
}

/**
 * The directories a run may touch and the rules for naming paths inside them. Resolution
 * decides scope; it grants nothing — reads and writes still need policy rules, and any scope
 * other than `workspace` also needs the `outside` rule.
 *
 * Checks are portable path checks (realpath, lstat, device and inode): they catch symlink
 * swaps that happen while a call waits for authorization, but not a swap between the last
 * check and the I/O. The file tools close that gap on Linux by doing the final I/O through the
 * checked parent directory's descriptor (see tools/files/checked-directory.ts); a host with
 * tools of its own must do the same, or add an OS sandbox.
 */
export class Workspace {
  private constructor(
    private readonly primary: Root,
    private readonly granted: readonly Root[],
    readonly unrestricted: boolean,
    /** See `WorkspaceOptions.privatePaths`. */
    readonly privatePaths: readonly string[],
  ) {}

  static async create(root: string, options: WorkspaceOptions = {}): Promise<Workspace> {
    const primary = await parseRoot(root);
    const granted = await Promise.all((options.grantedRoots ?? []).map((dir) => parseRoot(dir, 'granted root')));
    const privatePaths = (options.privatePaths ?? []).map((dir) => path.resolve(dir));
    const holding = privatePaths.find((dir) => isWithin(dir, primary.canonical));
    if (holding) throw refuse(root, `the workspace lies inside ${holding}, a directory of rho's own`, 'choose a workspace elsewhere');
    return new Workspace(primary, granted, options.unrestricted ?? false, privatePaths);
  }

  /** The canonical primary root. */
  get root(): string {
    return this.primary.canonical;
  }

  /** Canonical granted roots, in the order they were added. */
  get grantedRoots(): readonly string[] {
    return this.granted.map((root) => root.canonical);
  }

  /** A workspace that also accepts paths under `dir` (scope `granted_root`). */
  async withGrantedRoot(dir: string): Promise<Workspace> {
    return new Workspace(this.primary, [...this.granted, await parseRoot(dir, 'granted root')], this.unrestricted, this.privatePaths);
  }

  /** A workspace that accepts any path, `..` included (scope `unrestricted` outside the roots). Grants nothing by itself. */
  withUnrestrictedFileAccess(): Workspace {
    return new Workspace(this.primary, this.granted, true, this.privatePaths);
  }

  /** Resolves an existing path for reading; symlinks are followed and must stay in scope. */
  async resolveForRead(requested: string): Promise<ResolvedPath> {
    const { lexical, namesDirectory } = this.lexicalPath(requested);
    let canonical: string;
    try {
      // Synchronous here and in build(): a local lookup takes microseconds, a thread-pool round trip
      // far longer, and every process step resolves its cwd twice on the path between steps.
      canonical = realpathSync.native(namesDirectory ? `${lexical}${path.sep}` : lexical);
    } catch (cause) {
      // A missing path below a link that leaves scope is refused as such: "does not exist"
      // would tell a caller which paths exist outside.
      if (errorCode(cause) === 'ENOENT' || errorCode(cause) === 'ENOTDIR') await this.missingTarget(requested, lexical);
      throw lookupFailure(requested, cause);
    }
    return this.build(requested, lexical, canonical, 'read');
  }

  /**
   * Resolves a path for writing: the canonical existing target (a symlink is followed and
   * must stay in scope), or, for a missing target, its canonical nearest existing parent with
   * the state `missing`. A dangling symlink is refused: writing through it would create a
   * file wherever it points.
   */
  async resolveForWrite(requested: string): Promise<ResolvedPath> {
    const { lexical, namesDirectory } = this.lexicalPath(requested);
    if (namesDirectory) throw refuse(requested, 'a path ending in "/" names a directory and cannot be written as a file');
    const link = await lstat(lexical).catch((cause: unknown) => {
      if (errorCode(cause) === 'ENOENT' || errorCode(cause) === 'ENOTDIR') return undefined;
      throw lookupFailure(requested, cause);
    });
    if (link) {
      let canonical: string;
      try {
        canonical = await realpath(lexical);
      } catch (cause) {
        if (errorCode(cause) === 'ENOENT') throw refuse(requested, 'dangling symlink: writing through it would create a file wherever it points');
        throw lookupFailure(requested, cause);
      }
      return this.build(requested, lexical, canonical, 'write');
    }
    return this.buildMissing(requested, lexical);
  }

  /**
   * Resolves the path again right before I/O and refuses it if anything changed since it was
   * resolved: canonical target, parent chain, scope, identity, or existing/missing state.
   * Returns the same object, which the caller keeps using.
   */
  async revalidate(resolved: ResolvedPath): Promise<ResolvedPath> {
    if (!(resolved instanceof ResolvedPath)) throw new ToolError('internal', 'revalidate needs a ResolvedPath made by a Workspace');
    let again: ResolvedPath;
    try {
      again = resolved.purpose === 'read' ? await this.resolveForRead(resolved.requested) : await this.resolveForWrite(resolved.requested);
    } catch (cause) {
      const reason = cause instanceof ToolError ? String(cause.details['reason'] ?? cause.message) : String(cause);
      throw changed(resolved, `it no longer resolves (${reason})`, cause);
    }
    const difference = differenceBetween(resolved, again);
    if (difference) throw changed(resolved, difference);
    return resolved;
  }

  /** Whether a canonical path lies in one of the host's own directories (`WorkspaceOptions.privatePaths`). */
  isPrivate(canonical: string): boolean {
    // Called for every entry of a walk: a prefix test, not path.relative.
    return this.privatePaths.some((dir) => canonical === dir || (canonical.startsWith(dir) && canonical[dir.length] === path.sep));
  }

  /** The scope a canonical path falls in, or undefined when it is outside every root. */
  scopeOf(canonical: string): { scope: PathScope; root: string } | undefined {
    if (isWithin(this.primary.canonical, canonical)) return { scope: 'workspace', root: this.primary.canonical };
    const granted = this.granted.find((root) => isWithin(root.canonical, canonical));
    if (granted) return { scope: 'granted_root', root: granted.canonical };
    if (this.unrestricted) return { scope: 'unrestricted', root: path.parse(canonical).root };
    return undefined;
  }

  /** How a result shows an absolute path: relative to the primary root inside it ('.' for the root), absolute elsewhere. */
  showPath(absolute: string): string {
    if (!isWithin(this.primary.canonical, absolute)) return absolute;
    return path.relative(this.primary.canonical, absolute).split(path.sep).join('/') || '.';
  }

  /**
   * Checks the text of a request and places it under a root without touching the disk.
   * Absolute requests written with a root's given (non-canonical) spelling are rebased onto
   * its canonical form, so rules always see one spelling.
   */
  private lexicalPath(requested: string): { lexical: string; namesDirectory: boolean } {
    if (typeof requested !== 'string') throw refuse(String(requested), 'a path must be a string');
    const problem = pathTextProblem(requested);
    if (problem) throw refuse(requested, problem);
    if (!this.unrestricted && requested.split(separator).includes('..')) throw refuse(requested, 'parent traversal (..) is not allowed', fixes.parent);
    const namesDirectory = trailingSeparators.test(requested) && requested.replace(trailingSeparators, '') !== '';
    if (!path.isAbsolute(requested)) {
      return { lexical: path.resolve(this.primary.canonical, requested), namesDirectory };
    }
    const absolute = path.resolve(requested);
    for (const root of [this.primary, ...this.granted]) {
      for (const spelling of [root.canonical, root.given]) {
        if (isWithin(spelling, absolute)) return { lexical: path.join(root.canonical, path.relative(spelling, absolute)), namesDirectory };
      }
    }
    if (this.unrestricted) return { lexical: absolute, namesDirectory };
    throw refuse(requested, 'outside the workspace and every granted root', fixes.outside);
  }

  private async buildMissing(requested: string, lexical: string): Promise<ResolvedPath> {
    const target = await this.missingTarget(requested, lexical);
    return new ResolvedPath(constructionToken, {
      requested,
      lexical,
      canonical: target.canonical,
      existingAncestor: target.ancestor,
      ...target.placed,
      state: 'missing',
      purpose: 'write',
      entry: undefined,
      identity: undefined,
      links: undefined,
      ancestorIdentity: target.ancestorIdentity,
    });
  }

  /**
   * Places a missing path: its nearest existing ancestor, canonicalized, joined with the
   * missing rest. Refuses it when that ancestor is not a directory, dangles, or lies out of scope.
   */
  private async missingTarget(
    requested: string,
    lexical: string,
  ): Promise<{ canonical: string; ancestor: string; ancestorIdentity: FileIdentity; placed: { scope: PathScope; root: string } }> {
    let below: ReturnType<typeof missingBelow>;
    try {
      below = missingBelow(lexical);
    } catch (cause) {
      throw lookupFailure(requested, cause);
    }
    if (!below) throw refuse(requested, 'no existing parent directory');
    const { ancestor: cursor, missing } = below;
    let ancestor: string;
    try {
      ancestor = await realpath(cursor);
    } catch (cause) {
      if (errorCode(cause) === 'ENOENT') throw refuse(requested, `dangling symlink in a parent (${this.showPath(cursor)})`);
      throw lookupFailure(requested, cause);
    }
    const ancestorInfo = await lstat(ancestor).catch((cause: unknown) => {
      throw lookupFailure(requested, cause);
    });
    const canonical = path.join(ancestor, ...missing);
    const placed = this.place(requested, canonical);
    if (!ancestorInfo.isDirectory()) throw refuse(requested, `${this.showPath(cursor)} is not a directory`);
    return { canonical, ancestor, ancestorIdentity: identityOf(ancestorInfo), placed };
  }

  private async build(requested: string, lexical: string, canonical: string, purpose: PathPurpose): Promise<ResolvedPath> {
    const placed = this.place(requested, canonical);
    let info: Stats;
    try {
      info = lstatSync(canonical);
    } catch (cause) {
      throw lookupFailure(requested, cause);
    }
    // realpath returned a path free of symlinks; one appearing now means a swap mid-resolution.
    if (info.isSymbolicLink()) throw refuse(requested, 'the path changed while it was being resolved');
    const identity = identityOf(info);
    return new ResolvedPath(constructionToken, {
      requested,
      lexical,
      canonical,
      existingAncestor: canonical,
      ...placed,
      state: 'existing',
      purpose,
      entry: entryKind(info),
      identity,
      links: info.isFile() ? info.nlink : undefined,
      ancestorIdentity: identity,
    });
  }

  private place(requested: string, canonical: string): { scope: PathScope; root: string } {
    if (this.isPrivate(canonical)) throw refuse(requested, `${canonical} lies in a directory of rho's own (its state and caches), which no tool reads or writes`);
    const placed = this.scopeOf(canonical);
    if (!placed) throw refuse(requested, `resolves to ${canonical}, outside the workspace and every granted root`, fixes.outside);
    return placed;
  }
}

function changed(resolved: ResolvedPath, what: string, cause?: unknown): ToolError {
  return new ToolError('path_refused', `path ${quotePath(resolved.requested)} refused: it changed on disk after it was authorized: ${what}`, {
    cause,
    details: { path: resolved.requested.slice(0, 1024), reason: `changed after authorization: ${what}` },
  });
}

/** The first fact that differs between two resolutions of one request, described for a person. */
function differenceBetween(before: ResolvedPath, after: ResolvedPath): string | undefined {
  if (after.state !== before.state) return before.state === 'missing' ? 'it now exists' : 'it no longer exists';
  if (after.canonical !== before.canonical) return `it now resolves to ${after.canonical} instead of ${before.canonical}`;
  if (after.scope !== before.scope || after.root !== before.root) return `its scope is now ${after.scope}`;
  if (after.entry !== before.entry) return `it is now a ${after.entry ?? 'missing entry'}`;
  if (!sameIdentity(after.identity, before.identity)) return 'it was replaced by another file';
  if (after.existingAncestor !== before.existingAncestor || !sameIdentity(after.ancestorIdentity, before.ancestorIdentity)) {
    return 'a parent directory was replaced';
  }
  return undefined;
}
