import type { ToolRegistry } from '../../host/registry.js';
import type { Problem } from '../problems.js';
import type { WorkflowSource } from '../source.js';
import { closestNames } from '../suggest.js';
import type { DeclaredModule, DeclaredServer } from './tool-sources.js';

/** A step as far as these notes need it. */
interface NamedStep {
  id: string;
  tool: string;
  toolAt?: { line: number; col: number };
  /** Its workflow file, when not the run's. */
  file?: string;
  /** The named task it belongs to, when the notes cover more than one task. */
  task?: string;
}

/**
 * What a check that runs no workflow code could not inspect, one note each, located in the file:
 * the tool modules it did not import, the MCP servers it did not start, and the steps whose tool
 * may come from one of them (their arguments were not checked against a schema).
 */
export function uninspectedNotes(
  source: WorkflowSource,
  modules: readonly DeclaredModule[],
  servers: readonly DeclaredServer[],
  steps: readonly NamedStep[],
  tools: ToolRegistry,
): Problem[] {
  const note = (at: Parameters<WorkflowSource['position']>[0], message: string): Problem => ({ file: source.file, ...source.position(at), message: `note: ${message}` });
  const loadedBy = 'rho run and rho tools -f';
  return [
    ...modules.map((entry) => note(entry.at, `tool module ${entry.path} was not loaded (checking a workflow never runs its code); ${loadedBy} load it`)),
    ...servers.map((entry) => note(entry.at, `MCP server ${entry.declaration.name} was not started; ${loadedBy} start it and check its tools`)),
    ...steps.flatMap(({ id, tool, toolAt, file, task }) => {
      if (toolAt === undefined || tools.get(tool)) return [];
      const close = closestNames(tool, tools.names(), 1);
      const hint = close.length > 0 ? `; did you mean "${close[0]}"?` : '';
      return [
        {
          file: file ?? source.file,
          ...toolAt,
          message: `note: step ${id}${task === undefined ? '' : ` of task ${task}`}: tool ${tool} was not inspected (it is not built-in), so its arguments were not checked${hint}`,
        },
      ];
    }),
  ];
}
