import { literalPrefix } from '../../host/confinement/rule-paths.js';
import { expandHomePath } from '../../host/home-path.js';
import type { ToolRegistry } from '../../host/registry.js';
import { exclusive, shared, type ResourceAccess } from '../../host/resources.js';
import { normalizePathText } from '../../host/rules.js';
import type { Declaration } from '../../host/schedule-types.js';
import type { WorkflowFile } from '../../workflow/schema.js';

/** The programs a step's `writes:` confines: a call that runs only these says where it writes. */
const confinedByWrites = new Set(['exec', 'shell']);

/**
 * What one call of a task touches, for the server's schedule: calls that write apart run side by
 * side, and a call that may write what an earlier one touches waits for it, in the order they
 * arrived. The rule is a run's rule for a process step: a process step that says where it writes
 * (its own `writes:`, its task's, or the file's `defaults:`) holds exactly those places; a step
 * that reads the workspace (a read tool, `sources:`) holds it shared. A call that cannot say what
 * it writes runs alone: a tool that writes files, a process step that does not say, a background
 * process, a tool of an MCP server or a module, a step or `needs:` that runs another task.
 */
export function callDeclaration(file: WorkflowFile, task: string | undefined, registry: ToolRegistry, workspaceRoot: string, home: string | undefined): Declaration {
  const declared = task === undefined ? undefined : file.tasks?.[task];
  if (declared?.needs !== undefined) return 'exclusive';
  const steps = declared ? declared.steps : (file.steps ?? []);
  const taskWrites = declared?.defaults?.writes ?? declared?.writes ?? file.defaults?.writes;
  const held: ResourceAccess[] = [];
  const readsWorkspace = () => held.push(shared({ kind: 'tree', path: workspaceRoot }));
  if (declared?.sources !== undefined) readsWorkspace();
  for (const step of steps) {
    if (step.uses !== undefined) return 'exclusive';
    const tool = step.tool === undefined ? undefined : registry.get(step.tool);
    if (!tool) return 'exclusive';
    if (step.sources !== undefined) readsWorkspace();
    if (confinedByWrites.has(tool.name)) {
      const writes = step.writes ?? taskWrites;
      if (writes === undefined) return 'exclusive';
      for (const glob of writes) {
        const root = literalPrefix(normalizePathText(expandHomePath(glob, home, true)), workspaceRoot);
        held.push(exclusive({ kind: root.literal ? 'path' : 'tree', path: root.path }));
      }
      continue;
    }
    const { classes } = tool;
    if (classes.some((name) => name === 'write' || name === 'process' || name === 'shell' || name === 'network_tool')) return 'exclusive';
    if (classes.some((name) => name === 'read' || name === 'skill' || name === 'instructions')) readsWorkspace();
  }
  return held;
}
