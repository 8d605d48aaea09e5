import { containersOf, type Resource, type ResourceKind } from './resources.js';
import type { Blocker, Declaration } from './schedule-types.js';
import { IndexList } from './sorted-indices.js';

/** The unfinished calls entered under one key: all of them, and those that take it exclusively. */
class Entries {
  private readonly all = new IndexList();
  private readonly exclusive = new IndexList();

  enter(index: number, exclusive: boolean): void {
    this.all.insert(index);
    if (exclusive) this.exclusive.insert(index);
  }

  leave(index: number, exclusive: boolean): void {
    this.all.remove(index);
    if (exclusive) this.exclusive.remove(index);
  }

  /**
   * The latest call below `before` (if above `floor`, else `floor`) that clashes with an access
   * of the given mode: shared access clashes only with exclusive entries, exclusive with all.
   */
  latestClash(before: number, exclusive: boolean, floor: number): number {
    return (exclusive ? this.all : this.exclusive).latestBefore(before, floor);
  }
}

/** One declared access, resolved to the entries it is kept in. */
interface Claim {
  readonly kind: ResourceKind;
  readonly exclusive: boolean;
  /** The file's, the tree's or the key's own entries. */
  readonly own: Entries;
  /** For files and trees: the path, whose containers hold the call under `under`. */
  readonly node: PathNode | undefined;
}

/** The entries of one resource, with its two claims made once: a declaration only points at them. */
class ResourceEntries extends Entries {
  private readonly claims: readonly [shared: Claim, exclusive: Claim];

  constructor(kind: ResourceKind, node?: PathNode) {
    super();
    this.claims = [
      { kind, exclusive: false, own: this, node },
      { kind, exclusive: true, own: this, node },
    ];
  }

  claim(exclusive: boolean): Claim {
    return this.claims[exclusive ? 1 : 0];
  }
}

/** One canonical path, linked to the directory that contains it. */
class PathNode {
  /** Calls that access this path as a file. */
  readonly file = new ResourceEntries('path', this);
  /** Calls that access the tree rooted here. */
  readonly tree = new ResourceEntries('tree', this);
  /** Calls that access this path or anything inside it, as a file or as a tree. */
  readonly under = new Entries();

  constructor(readonly parent: PathNode | undefined) {}
}

/**
 * The declarations of unfinished calls (declared, waiting or running), indexed by resource so
 * that the scheduler finds the nearest earlier call a call must wait for by lookup instead of
 * comparing it with every earlier call.
 *
 * Each distinct path is interned once per run as a node linked to its containing directory, and
 * each process id, opaque key and the session as one set of entries. Every set of entries keeps
 * two ascending lists of unfinished call numbers (all of them, and those with exclusive access).
 * A file access is entered under its own node and under `under` of that node and every
 * container; a tree access likewise; a file looks for clashing files at its path and trees at
 * it or above it, a tree for trees at it or above it and anything under it. A call that cannot
 * declare its accesses is a barrier, kept in its own list beside the list of every call.
 *
 * Costs, with a accesses in a declaration, d the depth of a path (its containers, as
 * `containersOf` defines them) and n unfinished calls:
 * - `add`: one map lookup per access (the first sight of a path also interns its d containers)
 *   and O(a × d) list entries, each an O(1) push when calls are declared in model order (a
 *   binary search and a move of the later entries otherwise);
 * - `nearestBlocker`: O(a × d) binary searches, O(a × d × log n), allocating only the answer;
 * - `forget`: O(a × d × log n) when calls finish roughly in model order, as a list drops its
 *   front in place; a call that finishes ahead of earlier unfinished calls in a list moves the
 *   later entries of that list.
 * A declaration allocates one array of pointers to interned claims and no strings, so the
 * garbage a run makes grows with its calls only through the lists: memory is O(n × a × d) list
 * entries plus the interned paths and keys, which live as long as the index (one run).
 */
export class ConflictIndex {
  /** Every unfinished call, and the unfinished barriers. */
  private readonly calls = new IndexList();
  private readonly barriers = new IndexList();
  /** Per call number: its claims, 'exclusive' for a barrier, undefined when not entered. */
  private readonly claims: Array<readonly Claim[] | 'exclusive' | undefined>;
  private readonly paths = new Map<string, PathNode>();
  private readonly processes = new Map<string, ResourceEntries>();
  /** Owner → key → entries. */
  private readonly keys = new Map<string, Map<string, ResourceEntries>>();
  private readonly session = new ResourceEntries('session');

  constructor(count: number) {
    this.claims = new Array<undefined>(count).fill(undefined);
  }

  /** Makes room for one more call number. */
  extend(): void {
    this.claims.push(undefined);
  }

  /** Whether no unfinished call is entered. */
  get empty(): boolean {
    return this.calls.empty;
  }

  add(index: number, declaration: Declaration): void {
    this.calls.insert(index);
    if (declaration === 'exclusive') {
      this.claims[index] = 'exclusive';
      this.barriers.insert(index);
      return;
    }
    const claims = declaration.map(({ mode, resource }) => this.entriesOf(resource).claim(mode === 'exclusive'));
    this.claims[index] = claims;
    for (const claim of claims) record(claim, index, true);
  }

  /** Call once `index` has finished. */
  forget(index: number): void {
    const claims = this.claims[index];
    if (claims === undefined) return;
    this.claims[index] = undefined;
    this.calls.remove(index);
    if (claims === 'exclusive') this.barriers.remove(index);
    else for (const claim of claims) record(claim, index, false);
  }

  /** The nearest earlier unfinished call that keeps the added call `index` from starting, and why. */
  nearestBlocker(index: number): Blocker | undefined {
    const claims = this.claims[index];
    if (claims === undefined) return undefined;
    if (claims === 'exclusive') {
      const earlier = this.calls.latestBefore(index, -1);
      return earlier < 0 ? undefined : { kind: 'barrier', index: earlier };
    }
    let nearest = this.barriers.latestBefore(index, -1);
    let conflictKind: ResourceKind | undefined;
    for (const claim of claims) {
      const clash = latestClash(claim, index, nearest);
      if (clash > nearest) {
        nearest = clash;
        conflictKind = claim.kind;
      }
    }
    if (nearest < 0) return undefined;
    return conflictKind === undefined ? { kind: 'barrier', index: nearest } : { kind: 'conflict', index: nearest, resourceKind: conflictKind };
  }

  private entriesOf(resource: Resource): ResourceEntries {
    switch (resource.kind) {
      case 'path':
        return this.pathNode(resource.path).file;
      case 'tree':
        return this.pathNode(resource.path).tree;
      case 'process':
        return entriesFor(this.processes, 'process', resource.id);
      case 'session':
        return this.session;
      case 'key': {
        let owned = this.keys.get(resource.owner);
        if (!owned) this.keys.set(resource.owner, (owned = new Map()));
        return entriesFor(owned, 'key', resource.key);
      }
    }
  }

  /** The node of a path as written; the first sight of a spelling interns it and its containers. */
  private pathNode(written: string): PathNode {
    const known = this.paths.get(written);
    if (known) return known;
    const containers = containersOf(written);
    let node: PathNode | undefined;
    for (let at = containers.length - 1; at >= 0; at -= 1) {
      const canonical = containers[at] as string;
      let next = this.paths.get(canonical);
      if (!next) this.paths.set(canonical, (next = new PathNode(node)));
      node = next;
    }
    const found = node as PathNode;
    this.paths.set(written, found);
    return found;
  }
}

function entriesFor(table: Map<string, ResourceEntries>, kind: ResourceKind, key: string): ResourceEntries {
  let entries = table.get(key);
  if (!entries) table.set(key, (entries = new ResourceEntries(kind)));
  return entries;
}

/** Enters the call under (or removes it from) the claim's own entries and `under` of its path and every container. */
function record(claim: Claim, index: number, entering: boolean): void {
  if (entering) claim.own.enter(index, claim.exclusive);
  else claim.own.leave(index, claim.exclusive);
  for (let node = claim.node; node; node = node.parent) {
    if (entering) node.under.enter(index, claim.exclusive);
    else node.under.leave(index, claim.exclusive);
  }
}

/** The latest call below `before` and above `floor` (else `floor`) whose entries clash with the claim. */
function latestClash(claim: Claim, before: number, floor: number): number {
  const { node, exclusive } = claim;
  if (!node) return claim.own.latestClash(before, exclusive, floor);
  // A file meets files at its path, a tree everything under it (files and trees at or inside it)...
  let latest = (claim.kind === 'tree' ? node.under : node.file).latestClash(before, exclusive, floor);
  // ...and both meet the trees at the path or containing it.
  for (let container: PathNode | undefined = node; container; container = container.parent) {
    latest = container.tree.latestClash(before, exclusive, latest);
  }
  return latest;
}
