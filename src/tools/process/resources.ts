import { guardedDirectories, type CallConfinement } from '../../host/confinement/index.js';
import { exclusive, shared, type ResourceAccess } from '../../host/resources.js';
import type { ResolvedPath } from '../../host/workspace.js';

/**
 * What a process step touches, as the scheduler sees it: exclusive access to each place it may
 * write (its writable roots), and shared access to its cwd tree, which it may read. So `npm ci`
 * (writes `node_modules`) and a later `npm run build` (reads it) keep their order. A step that
 * says where it writes (`writes:`) declares exactly that and nothing else, so a lint step with
 * `writes: []` runs beside a build, as with `make -j`. A cache (`policy.caches`) is shared: the
 * tools that keep one lock it themselves, so two `npm ci` of separate projects run side by
 * side. A step whose roots' directories are guarded and checked holds each such directory whole:
 * what anyone else created there while it ran would be taken for the process's own and removed.
 * The roots are declared whether or not the run confines, so the schedule is the same either way.
 */
export function processStepResources(cwd: ResolvedPath, confinement: CallConfinement | undefined): ResourceAccess[] {
  const writable = (confinement?.plan.writable ?? []).map((root) => {
    const resource = root.kind === 'tree' ? { kind: 'tree' as const, path: root.path } : { kind: 'path' as const, path: root.path };
    return root.cache ? shared(resource) : exclusive(resource);
  });
  const checked = confinement?.guarded ? guardedDirectories(confinement.plan).filter((directory) => !directory.open) : [];
  const guarded = checked.map((directory) => exclusive({ kind: 'tree', path: directory.path }));
  // A checked directory held whole already covers a shared hold on the same tree.
  const reads = confinement?.narrowed || checked.some((directory) => directory.path === cwd.canonical) ? [] : [shared({ kind: 'tree' as const, path: cwd.canonical })];
  return [...reads, ...guarded, ...writable];
}

/** A background process as a scheduler resource. */
export function backgroundProcessResource(processId: string): { kind: 'process'; id: string } {
  return { kind: 'process', id: processId };
}
