import { resourceIndexKeys, type ResourceKind } from './resources.js';
import type { Blocker, Declaration } from './schedule-types.js';
import { positionOf } from './sorted-indices.js';

/**
 * Unfinished call indices in ascending order. Calls are mostly declared in ascending order and
 * finish roughly in that order too, so entries are usually added at the end and removed from
 * the front, which costs nothing here: the front is dropped by moving `start`.
 */
class IndexList {
  private indices: number[] = [];
  private start = 0;

  insert(index: number): void {
    const last = this.indices[this.indices.length - 1];
    if (this.indices.length === this.start || (last as number) < index) {
      this.indices.push(index);
      return;
    }
    const at = positionOf(this.indices, index, this.start);
    if (this.indices[at] !== index) this.indices.splice(at, 0, index);
  }

  remove(index: number): void {
    const at = positionOf(this.indices, index, this.start);
    if (this.indices[at] !== index) return;
    if (at > this.start) {
      this.indices.splice(at, 1);
      return;
    }
    this.start += 1;
    if (this.start * 2 > this.indices.length) {
      this.indices = this.indices.slice(this.start);
      this.start = 0;
    }
  }

  /** The highest index below `before`, if it is above `floor`. */
  latestBefore(before: number, floor: number): number | undefined {
    const at = positionOf(this.indices, before, this.start) - 1;
    const index = at >= this.start ? (this.indices[at] as number) : undefined;
    return index !== undefined && index > floor ? index : undefined;
  }
}

/** Where one call is entered, and where to look for the calls it must wait for. */
interface Footprint {
  lists: readonly string[];
  exclusive: boolean;
  probes: ReadonlyArray<{ lists: readonly string[]; kind: ResourceKind }>;
}

/**
 * The declarations of unfinished calls (declared, waiting or running), indexed by resource so
 * that the scheduler finds the nearest earlier call a call must wait for by lookup instead of
 * comparing it with every earlier call. Lists: every call, the exclusive calls, and per
 * resource key the calls entered under it (all of them, and those with exclusive access).
 */
export class ConflictIndex {
  private readonly lists = new Map<string, IndexList>();
  private readonly footprints = new Map<number, Footprint>();

  add(index: number, declaration: Declaration): void {
    const footprint = footprintOf(declaration);
    this.footprints.set(index, footprint);
    for (const name of footprint.lists) {
      let list = this.lists.get(name);
      if (!list) this.lists.set(name, (list = new IndexList()));
      list.insert(index);
    }
  }

  /** Call once `index` has finished. */
  forget(index: number): void {
    const footprint = this.footprints.get(index);
    if (!footprint) return;
    this.footprints.delete(index);
    for (const name of footprint.lists) this.lists.get(name)?.remove(index);
  }

  /** The nearest earlier unfinished call that keeps the added call `index` from starting, and why. */
  nearestBlocker(index: number): Blocker | undefined {
    const footprint = this.footprints.get(index);
    if (!footprint) return undefined;
    if (footprint.exclusive) {
      const earlier = this.latest('any', index, -1);
      return earlier === undefined ? undefined : { kind: 'barrier', index: earlier };
    }
    const barrier = this.latest('barrier', index, -1);
    let nearest: Blocker | undefined = barrier === undefined ? undefined : { kind: 'barrier', index: barrier };
    for (const probe of footprint.probes) {
      for (const name of probe.lists) {
        const earlier = this.latest(name, index, nearest?.index ?? -1);
        if (earlier !== undefined) nearest = { kind: 'conflict', index: earlier, resourceKind: probe.kind };
      }
    }
    return nearest;
  }

  private latest(name: string, before: number, floor: number): number | undefined {
    return this.lists.get(name)?.latestBefore(before, floor);
  }
}

function footprintOf(declaration: Declaration): Footprint {
  if (declaration === 'exclusive') return { lists: ['any', 'barrier'], exclusive: true, probes: [] };
  const lists = new Set(['any']);
  const probes: Array<{ lists: readonly string[]; kind: ResourceKind }> = [];
  for (const { mode, resource } of declaration) {
    const keys = resourceIndexKeys(resource);
    for (const entry of keys.entries) {
      lists.add(`all ${entry}`);
      if (mode === 'exclusive') lists.add(`exclusive ${entry}`);
    }
    // Shared access only clashes with exclusive entries; exclusive access clashes with all.
    const against = mode === 'exclusive' ? 'all' : 'exclusive';
    probes.push({ lists: keys.probes.map((probe) => `${against} ${probe}`), kind: resource.kind });
  }
  return { lists: [...lists], exclusive: false, probes };
}
