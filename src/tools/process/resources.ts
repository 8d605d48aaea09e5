import type { CallConfinement } from '../../host/confinement/index.js';
import { exclusive, shared, type ResourceAccess } from '../../host/resources.js';
import type { ResolvedPath } from '../../host/workspace.js';

/**
 * What a process step touches, as the scheduler sees it: shared access to its cwd tree, and
 * exclusive access to each place the policy lets it write (its writable roots, narrowed by the
 * step's `writes:`). So `npm ci` (writes `node_modules`) and a later `npm run build` (reads it
 * from the same tree) keep their order, while steps that write nothing overlap, as with
 * `make -j`. The roots are declared whether or not the run confines, so the schedule is the same.
 */
export function processStepResources(cwd: ResolvedPath, confinement: CallConfinement | undefined): ResourceAccess[] {
  const writable = confinement?.plan.writable ?? [];
  return [
    shared({ kind: 'tree', path: cwd.canonical }),
    ...writable.map((root) => exclusive(root.kind === 'tree' ? { kind: 'tree', path: root.path } : { kind: 'path', path: root.path })),
  ];
}

/** A background process as a scheduler resource. */
export function backgroundProcessResource(processId: string): { kind: 'process'; id: string } {
  return { kind: 'process', id: processId };
}
