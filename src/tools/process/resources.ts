import { shared, type ResourceAccess } from '../../host/resources.js';
import type { ResolvedPath } from '../../host/workspace.js';

/**
 * What a process step touches, as the scheduler sees it: shared access to its cwd tree. Like
 * `make -j`, independent commands overlap when parallelism is raised, while a file tool's
 * exclusive write anywhere under that tree waits for them (and they for it) in model order.
 * A step whose program writes files other steps use declares them with `resources:`.
 */
export function processStepResources(cwd: ResolvedPath): ResourceAccess[] {
  return [shared({ kind: 'tree', path: cwd.canonical })];
}

/** A background process as a scheduler resource. */
export function backgroundProcessResource(processId: string): { kind: 'process'; id: string } {
  return { kind: 'process', id: processId };
}
