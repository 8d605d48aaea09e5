import path from 'node:path';
import type { CallConfinement } from '../../../host/confinement/index.js';
import { showHomePath } from '../../../host/home-path.js';
import { isWithin } from '../../../host/workspace.js';

/** What a line of a failed program's output says about a path, as the usual messages put it. */
const failures: readonly { pattern: RegExp; access: 'write' | 'read' }[] = [
  { pattern: /Read-only file system|\bEROFS\b/, access: 'write' },
  { pattern: /Permission denied|\bEACCES\b|\bEPERM\b/, access: 'write' },
  { pattern: /No such file or directory|\bENOENT\b|not found/, access: 'read' },
];

/** Absolute paths in a line: after a space, a quote, a bracket, `=` or `:` (`open '/root/.npm/_cacache'`). */
const absolutePaths = /(?:^|[\s'"`‘“(=:[])(\/[^\s'"`‘’“”()[\],;:]+)/g;

/** Relative paths in a line, as a shell names them (`cannot create coverage.txt:`): words with a `.` or a `/` in them. */
const relativePaths = /(?:^|[\s'"`‘“(=[])([\w@+-][\w.@+\-/]*[./][\w.@+\-/]*\w)(?=[:'"’”)\]\s,]|$)/g;

/** The paths a stretch of output names: absolute ones as they are, relative ones from the process's cwd. */
function pathsIn(text: string, cwd: string): string[] {
  const absolute = [...text.matchAll(absolutePaths)].map((match) => match[1]!.replace(/[.'"]+$/, ''));
  const relative = [...text.matchAll(relativePaths)].filter((match) => !match[1]!.startsWith('/')).map((match) => path.join(cwd, match[1]!));
  return [...absolute, ...relative].map((found) => path.normalize(found));
}

/** Lines looked at, from the end of the output; lines before a failure that may name its path (cargo's `Caused by:`); hints given at most. */
const linesLookedAt = 200;
const linesBefore = 4;
const mostHints = 3;

/** Home directories whose entries name tools only one level further down (`~/.config/gh`, `~/.local/share/uv`). */
const sharedDirectories: readonly string[][] = [['.config'], ['.cache'], ['.local', 'share'], ['.local', 'state'], ['.local']];

/** The directory to grant for a path in a home: the tool's own (`~/.config/gh`, not all of `~/.config`). */
function toolDirectory(home: string, target: string): string {
  const names = path.relative(home, target).split(path.sep);
  const shared = sharedDirectories.find((prefix) => prefix.every((name, index) => names[index] === name) && names.length > prefix.length);
  return path.join(home, ...names.slice(0, (shared?.length ?? 0) + 1));
}

/** The rule that grants writing a workspace path to processes: its top directory's tree, or the file itself at the root. */
function workspaceGrant(workspace: string, target: string): string {
  const [first, ...rest] = path.relative(workspace, target).split(path.sep);
  return rest.length === 0 ? `write(${first})` : `write(${first}/**)`;
}

/**
 * What a confined process's failure output says the sandbox kept from it, each with the grant
 * that allows it: a path in the hidden home (a cache by its name, else a granted root with a
 * rule), a read-only path in the workspace (a write rule, or the step's `writes:`), the host's
 * read-only /tmp. Read failures count only in the home, which the process could not see. A
 * relative path is the process's, from its `cwd`.
 */
export function confinementHints(output: string, confinement: CallConfinement, cwd: string): string[] {
  const { plan } = confinement;
  const home = confinement.home;
  const homes = [...plan.hiddenHomes, ...(home ? [home] : [])];
  const shown = (target: string) => showHomePath(target, home);
  const hints = new Map<string, string>();
  const lines = output.split('\n').slice(-linesLookedAt);
  for (const [index, line] of lines.entries()) {
    const failure = failures.find((candidate) => candidate.pattern.test(line));
    if (!failure) continue;
    const nearby = lines
      .slice(Math.max(0, index - linesBefore), index + 1)
      .reverse()
      .join('\n');
    for (const target of pathsIn(nearby, cwd)) {
      if (hints.size >= mostHints || [...hints.keys()].some((known) => isWithin(known, target))) continue;
      const inHome = homes.find((candidate) => isWithin(candidate, target) && candidate !== target);
      if (inHome) {
        const cache = plan.scope.caches.find((candidate) => isWithin(candidate.path, target) || isWithin(target, candidate.path));
        const granted = plan.writable.some((root) => isWithin(root.path, target));
        if (granted) continue;
        if (cache) {
          hints.set(cache.path, `${shown(target)} is in your home, which confined processes cannot see: grant it with policy caches: [${cache.name}]`);
          continue;
        }
        const directory = toolDirectory(inHome, target);
        const rule = `${failure.access}(${shown(directory)}/**)`;
        hints.set(
          directory,
          `${shown(target)} is in your home, which confined processes cannot see: grant it with policy granted_roots: ["${shown(directory)}"] and allow: ["${rule}", outside]`,
        );
        continue;
      }
      if (failure.access === 'read') continue;
      if (isWithin(plan.scope.workspace, target)) {
        if (plan.writable.some((root) => isWithin(root.path, target))) continue;
        const granted = plan.scope.writable.some((root) => isWithin(root, target));
        const grant = workspaceGrant(plan.scope.workspace, target);
        const relative = path.relative(plan.scope.workspace, target).split(path.sep).join('/');
        hints.set(
          target,
          granted && confinement.narrowed
            ? `${relative} is not in this step's writes:, so it is read-only to it: add ${grant.slice(6, -1)} there`
            : `${relative} is read-only to confined processes: grant it with --allow '${grant}'`,
        );
        continue;
      }
      if (isWithin('/tmp', target)) hints.set('/tmp', `${target}: the host's /tmp is read-only to confined processes: write to $TMPDIR, a private directory of the step's own`);
    }
  }
  return [...hints.values()];
}
