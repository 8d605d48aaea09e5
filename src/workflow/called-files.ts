import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { ToolRegistry } from '../host/registry.js';
import { calledFileProblems } from './called-file.js';
import { compileFile, type CompileOptions } from './compile.js';
import type { CompiledFile } from './link.js';
import type { UsesCall } from './model.js';
import type { Problem } from './problems.js';
import { WorkflowSource } from './source.js';
import { calledFileDisplay } from './uses.js';

/** Most other files one run's `uses:` steps may reach. */
export const maxCalledFiles = 100;

/**
 * Reads and compiles every file the `uses:` steps of `root` name, and those their own steps
 * name, once each. Each must be inside the workspace (symbolic links resolved) and is compiled
 * with the calling run's tools; what a called file may not set is refused (see called-file.ts).
 */
export async function loadCalledFiles(
  root: CompiledFile,
  tools: ToolRegistry,
  options: Pick<CompileOptions, 'pendingServers' | 'pendingModules'>,
  workspace: { flag?: string | undefined; cwd: string },
): Promise<{ files: Map<string, CompiledFile>; problems: Problem[]; warnings: Problem[] }> {
  const files = new Map<string, CompiledFile>();
  const problems: Problem[] = [];
  const warnings: Problem[] = [];
  const runFile = path.resolve(root.source.file);
  const given = workspace.flag !== undefined ? path.resolve(workspace.cwd, workspace.flag) : root.file.workspace !== undefined ? path.resolve(root.source.directory, root.file.workspace) : workspace.cwd;
  const workspaceRoot = await realpath(given).catch(() => given);
  const seen = new Set<string>([runFile]);
  const queue: { caller: CompiledFile; uses: UsesCall }[] = callsOf(root);
  while (queue.length > 0) {
    const { caller, uses } = queue.shift()!;
    const target = uses.target.file;
    if (seen.has(target)) continue;
    seen.add(target);
    const at = (message: string) => problems.push({ ...uses.at, message: `uses: ${uses.text}: ${message}` });
    if (seen.size - 1 > maxCalledFiles) {
      at(`a run may call tasks of at most ${maxCalledFiles} other files`);
      break;
    }
    const real = await realpath(target).catch(() => undefined);
    if (real === undefined) {
      at('no such file');
      continue;
    }
    const inside = path.relative(workspaceRoot, real);
    if (inside.startsWith('..') || path.isAbsolute(inside)) {
      at(`the file is outside the workspace (${workspaceRoot}); a called file must be inside it`);
      continue;
    }
    const read = await WorkflowSource.read(calledFileDisplay(caller.source.file, uses.text));
    problems.push(...read.problems);
    if (!read.source) continue;
    const compiled = compileFile(read.source, tools, options);
    problems.push(...compiled.problems);
    warnings.push(...compiled.warnings);
    if (!compiled.file) continue;
    const file: CompiledFile = { ...compiled, file: compiled.file };
    problems.push(...calledFileProblems(read.source, compiled.file));
    files.set(target, file);
    queue.push(...callsOf(file));
  }
  return { files, problems, warnings };
}

function callsOf(file: CompiledFile): { caller: CompiledFile; uses: UsesCall }[] {
  const own = path.resolve(file.source.file);
  return [...file.tasks.values()].flatMap((task) => task.steps.flatMap((step) => (step.uses && step.uses.target.file !== own ? [{ caller: file, uses: step.uses }] : [])));
}
