import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { ToolRegistry } from '../host/registry.js';
import { calledFileProblems } from './called-file.js';
import { compileFile, type CompileOptions } from './compile.js';
import type { CompiledFile } from './link.js';
import type { SourcePosition, TaskReference } from './model.js';
import type { Problem } from './problems.js';
import { usesPattern } from './schema.js';
import { WorkflowSource, type NodePath } from './source.js';
import { workspaceOf, type WorkspaceChoice } from './workspace-root.js';
import { calledFileDisplay, callsAnotherFile, parseUsesTarget } from './uses.js';

/** Most other files one run's `uses:` steps may reach. */
export const maxCalledFiles = 100;

/**
 * Reads and compiles every file the `uses:` steps of `root` name, and those their own steps
 * name, once each, a file after the files it calls (so what their outputs carry is known when
 * it is compiled). Each must be inside the workspace (symbolic links resolved) and is compiled
 * with the calling run's tools; what a called file may not set is refused (see called-file.ts).
 * `calledTask` is what the root's own compilation needs of them.
 */
export async function loadCalledFiles(
  root: WorkflowSource,
  tools: ToolRegistry,
  options: Pick<CompileOptions, 'pendingServers' | 'pendingModules' | 'processNetwork' | 'homeDirectory'>,
  workspace: WorkspaceChoice,
): Promise<{ files: Map<string, CompiledFile>; problems: Problem[]; warnings: Problem[]; calledTask: NonNullable<CompileOptions['calledTask']> }> {
  const files = new Map<string, CompiledFile>();
  const problems: Problem[] = [];
  const warnings: Problem[] = [];
  const calledTask = (reference: TaskReference) => files.get(reference.file)?.tasks.get(reference.task);
  const declared = (root.toData() as { workspace?: unknown } | null)?.workspace;
  const given = workspaceOf(root.directory, typeof declared === 'string' ? declared : undefined, workspace);
  const workspaceRoot = await realpath(given).catch(() => given);
  // Every file met so far, the run's own included: each is read once, and a cycle stops here (it is refused later).
  const met = new Set<string>([path.resolve(root.file)]);
  const load = async (caller: WorkflowSource): Promise<void> => {
    for (const call of callsToOtherFiles(caller)) {
      if (met.has(call.target)) continue;
      met.add(call.target);
      const at = (message: string) => problems.push({ ...call.at, message: `uses: ${call.text}: ${message}` });
      if (met.size - 1 > maxCalledFiles) return void at(`a run may call tasks of at most ${maxCalledFiles} other files`);
      const real = await realpath(call.target).catch(() => undefined);
      if (real === undefined) {
        at('no such file');
        continue;
      }
      const inside = path.relative(workspaceRoot, real);
      if (inside.startsWith('..') || path.isAbsolute(inside)) {
        at(`the file is outside the workspace (${workspaceRoot}); a called file must be inside it`);
        continue;
      }
      const read = await WorkflowSource.read(calledFileDisplay(caller.file, call.text), caller.cachePlace);
      problems.push(...read.problems);
      if (!read.source) continue;
      await load(read.source);
      const compiled = compileFile(read.source, tools, { ...options, calledTask });
      problems.push(...compiled.problems);
      warnings.push(...compiled.warnings);
      if (!compiled.file) continue;
      problems.push(...calledFileProblems(read.source, compiled.file));
      if (read.problems.length === 0) read.source.keep();
      files.set(call.target, { ...compiled, file: compiled.file });
    }
  };
  await load(root);
  return { files, problems, warnings, calledTask };
}

/** The `uses:` values of a file, as written, that name another file: where each is, and the file's absolute path. */
function callsToOtherFiles(source: WorkflowSource): { text: string; target: string; at: SourcePosition }[] {
  const data = source.toData() as { steps?: unknown; tasks?: unknown } | null;
  const lists: [NodePath, unknown][] = [[['steps'], data?.steps]];
  if (data?.tasks !== null && typeof data?.tasks === 'object') {
    for (const [name, task] of Object.entries(data.tasks as Record<string, unknown>)) {
      // A task written as a list is its steps.
      lists.push(Array.isArray(task) ? [['tasks', name], task] : [['tasks', name, 'steps'], (task as { steps?: unknown } | null)?.steps]);
    }
  }
  const calls: { text: string; target: string; at: SourcePosition }[] = [];
  const add = (text: unknown, at: NodePath) => {
    if (typeof text !== 'string' || !callsAnotherFile(text) || !usesPattern.test(text)) return;
    calls.push({ text, target: parseUsesTarget(text, source).file, at: { file: source.file, ...source.position(at) } });
  };
  for (const [at, steps] of lists) {
    if (Array.isArray(steps)) for (const [index, step] of steps.entries()) add((step as { uses?: unknown } | null)?.uses, [...at, index, 'uses']);
  }
  // A task's needs: are uses: steps too.
  const tasks = data?.tasks !== null && typeof data?.tasks === 'object' ? (data.tasks as Record<string, unknown>) : {};
  for (const [name, task] of Object.entries(tasks)) {
    const needs = (task as { needs?: unknown } | null)?.needs;
    if (Array.isArray(needs)) for (const [index, text] of needs.entries()) add(text, ['tasks', name, 'needs', index]);
    else add(needs, ['tasks', name, 'needs']);
  }
  return calls;
}
