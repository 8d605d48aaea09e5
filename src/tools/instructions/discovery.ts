import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { ResolvedPath, Workspace } from '../../host/workspace.js';

/** File names read as instructions, in the order they are listed within one directory. */
export const instructionFileNames: readonly string[] = ['AGENTS.md', 'CLAUDE.md'];

export const discoveryLimits = {
  defaultDepth: 3,
  maxDepth: 8,
  defaultFiles: 20,
  maxFiles: 100,
  /** Directories looked into, however deep: keeps a walk of a huge tree short. */
  directories: 2000,
} as const;

export interface DiscoveryOptions {
  maxDepth: number;
  maxFiles: number;
}

export interface Discovery {
  files: ResolvedPath[];
  /** Candidates left out, with why (a link leaving the workspace, an unreadable entry). */
  skipped: { path: string; reason: string }[];
  /** True when a limit stopped the walk before it saw everything. */
  limited: boolean;
}

/** Dot-directories (`.git`) and dependency folders hold other projects' files, not this one's instructions. */
function isSearched(name: string): boolean {
  return !name.startsWith('.') && name !== 'node_modules';
}

/**
 * Finds instruction files breadth-first from the workspace root: the root's own files first,
 * then each level below, names sorted. Directory symlinks are not followed; a file symlink is
 * accepted only when it resolves inside the workspace. Nothing is read here, only listed.
 */
export async function findInstructionFiles(workspace: Workspace, options: DiscoveryOptions): Promise<Discovery> {
  const discovery: Discovery = { files: [], skipped: [], limited: false };
  let level: string[] = [''];
  let visited = 0;
  for (let depth = 0; depth <= options.maxDepth && level.length > 0; depth++) {
    const next: string[] = [];
    for (const relativeDir of level) {
      if (visited++ >= discoveryLimits.directories) {
        discovery.limited = true;
        return discovery;
      }
      const entries = await readdir(path.join(workspace.root, relativeDir), { withFileTypes: true }).catch(() => []);
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const name of instructionFileNames) {
        const entry = entries.find((candidate) => candidate.name === name && (candidate.isFile() || candidate.isSymbolicLink()));
        if (!entry) continue;
        if (discovery.files.length >= options.maxFiles) {
          discovery.limited = true;
          return discovery;
        }
        const relative = relativeDir ? `${relativeDir}/${name}` : name;
        const placed = await placeCandidate(workspace, relative, discovery.files);
        if (typeof placed === 'string') discovery.skipped.push({ path: relative, reason: placed });
        else discovery.files.push(placed);
      }
      for (const entry of entries) {
        if (entry.isDirectory() && isSearched(entry.name)) next.push(relativeDir ? `${relativeDir}/${entry.name}` : entry.name);
      }
    }
    if (depth === options.maxDepth && next.length > 0) discovery.limited = true;
    level = next;
  }
  return discovery;
}

/**
 * The resolved file, or why it is left out. A link is followed only to another instruction
 * file (CLAUDE.md → AGENTS.md), so an instructions grant never reads `.env` through a link.
 */
async function placeCandidate(workspace: Workspace, relative: string, found: readonly ResolvedPath[]): Promise<ResolvedPath | string> {
  try {
    const resolved = await workspace.resolveForRead(relative);
    if (resolved.scope !== 'workspace') return 'it links outside the workspace';
    if (resolved.entry !== 'file') return 'it is not a regular file';
    if (!instructionFileNames.includes(path.basename(resolved.canonical))) return 'it links to a file that is not an instruction file';
    const same = found.find((file) => file.canonical === resolved.canonical);
    if (same) return `it is the same file as ${same.relativeToRoot()}`;
    return resolved;
  } catch (cause) {
    return (cause as Error).message;
  }
}
