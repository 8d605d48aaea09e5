import { exclusive, type ResourceAccess } from '../../host/resources.js';
import type { ResolvedPath } from '../../host/workspace.js';

/**
 * What a process step touches, as the scheduler sees it. A program can read and write anything
 * under its cwd, so by default it holds that directory tree exclusively; this is the one place
 * the declaration is made, so a narrower one (a workflow's `resources:`) replaces it here.
 */
export function processStepResources(cwd: ResolvedPath): ResourceAccess[] {
  return [exclusive({ kind: 'tree', path: cwd.canonical })];
}

/** A background process as a scheduler resource. */
export function backgroundProcessResource(processId: string): { kind: 'process'; id: string } {
  return { kind: 'process', id: processId };
}
