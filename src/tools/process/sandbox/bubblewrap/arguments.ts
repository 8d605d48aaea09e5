import { statSync } from 'node:fs';
import path from 'node:path';
import type { ResolvedPlan } from '../../../../host/confinement/index.js';
import { locateThroughTrustedLinks } from '../../../../host/disk-paths.js';
import { isWithin } from '../../../../host/workspace.js';
import type { PathMount } from '../backend.js';
import { privateMounts } from '../private-mounts.js';

/**
 * Namespaces and process settings every confined process gets: its own PID namespace (so every
 * descendant, setsid or double-forked, dies with it) and IPC namespace (SysV objects and POSIX
 * message queues of its own, gone with it), killed when rho dies, a new session (no terminal to
 * inject input into), no capabilities even when rho runs as root, the host's file system
 * read-only, a minimal /dev and its own /proc.
 */
export const baseArguments: readonly string[] = [
  '--die-with-parent',
  '--unshare-pid',
  '--unshare-ipc',
  '--new-session',
  '--cap-drop',
  'ALL',
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--proc',
  '/proc',
];

/** The descriptor bubblewrap reads the seccomp filter from (`seccomp-filter.ts`): the first after stdin, stdout and stderr. */
export const filterDescriptor = 3;

/** Tells bubblewrap to install the filter it reads on `filterDescriptor` before it starts the program. */
export const seccompArguments: readonly string[] = ['--seccomp', String(filterDescriptor)];

export interface ConfinedProcess {
  /** The programs the sandbox starts, as resolved (each and its installation stay readable, even inside a hidden home). */
  programs: readonly string[];
  cwd: string;
  /** The mounts that make the writable roots writable and keep protected places read-only (`prepareWriteChecks`). */
  writeMounts: readonly PathMount[];
  /** It joins the run's shared network namespace (`shared-network.ts`) rather than making one of its own. */
  joinsNetwork?: boolean;
}

/** bubblewrap's arguments for mounts applied in order, each path on itself. */
export function mountArguments(mounts: readonly PathMount[]): string[] {
  return mounts.flatMap((mount) => [`--${mount.writable ? 'bind' : 'ro-bind'}${mount.ifPresent ? '-try' : ''}`, mount.path, mount.path]);
}

/** An empty read-only file system over each directory. */
function emptyReadOnly(directories: readonly string[]): string[] {
  return directories.flatMap((directory) => ['--tmpfs', directory, '--remount-ro', directory]);
}

/**
 * Where a program keeps what it needs to start: its directory, and for a program in a `bin/`
 * directory the installation above it (a Node under `~/.nvm/versions/node/v20/`), both as
 * named and as resolved through symlinks. An installation is never a hidden home itself nor a
 * directory right inside one (`~/bin`, `~/.local/bin`: the home, or all of `~/.local`, would be
 * bared), and never found through a link in a place steps write (`untrusted`): only the
 * program's own directory is then kept.
 */
export function programInstallation(file: string, hiddenHomes: readonly string[], untrusted: readonly string[]): string[] {
  let resolved: string | undefined;
  try {
    resolved = locateThroughTrustedLinks(file, untrusted).canonical;
  } catch {
    // A planted link, or a missing program (the launch reports it itself).
  }
  const tooWide = (installation: string) => hiddenHomes.some((home) => installation === home || path.dirname(installation) === home);
  return [...new Set([file, ...(resolved ? [resolved] : [])])].map((entry) => {
    const directory = path.dirname(entry);
    const above = path.dirname(directory);
    return path.basename(directory) === 'bin' && !tooWide(above) ? above : directory;
  });
}

/** An existing path's kind, following symlinks (a mount lands on the target); undefined when missing. */
function kindOf(target: string): 'directory' | 'file' | undefined {
  const info = statSync(target, { throwIfNoEntry: false });
  if (!info) return undefined;
  return info.isDirectory() ? 'directory' : 'file';
}

/**
 * The bubblewrap arguments that confine one process to a plan resolved on disk. Order matters, as
 * bubblewrap mounts in argument order: the private temp and the hidden homes become empty
 * directories, the links inside them that lead to what stays visible are recreated, what must
 * stay visible inside them (the workspace, toolchains, the program's installation, the cwd) is
 * mounted back read-only, writable roots over that (`target.writeMounts`, which also pin the
 * directories that hold rho's own in place), read-only exceptions inside those, hidden paths over
 * everything (a deny always wins) and rho's own directories last, and only then are the homes
 * made read-only (mount points inside them must be created first). Missing writable trees must
 * exist before this runs (`prepareWritableTrees`): `--bind-try` skips a source that does not.
 */
export function bubblewrapArguments(plan: ResolvedPlan, target: ConfinedProcess): string[] {
  const args = [...baseArguments];
  const emptied = plan.privateTemp ? [plan.privateTemp, ...plan.hiddenHomes] : plan.hiddenHomes;
  for (const directory of emptied) args.push('--tmpfs', directory);
  if (emptied.length > 0) {
    for (const link of plan.links) args.push('--symlink', link.target, link.path);
    const covered = (candidate: string) => emptied.some((directory) => isWithin(directory, candidate));
    const installations = target.programs.flatMap((program) => programInstallation(program, plan.hiddenHomes, plan.scope.places));
    const visible = new Set([...plan.exposed, ...[...installations, target.cwd].filter(covered)]);
    for (const exposed of visible) args.push('--ro-bind-try', exposed, exposed);
  }
  args.push(...mountArguments(target.writeMounts));
  for (const kept of plan.readOnly) args.push('--ro-bind-try', kept, kept);
  for (const hidden of plan.hidden) {
    const kind = kindOf(hidden);
    if (kind === 'directory') args.push(...emptyReadOnly([hidden]));
    else if (kind === 'file') args.push('--ro-bind', '/dev/null', hidden);
  }
  args.push(...emptyReadOnly(privateMounts(plan).hides));
  for (const home of plan.hiddenHomes) args.push('--remount-ro', home);
  if (plan.network.mode !== 'host' && !target.joinsNetwork) args.push('--unshare-net');
  args.push(...seccompArguments, '--chdir', target.cwd);
  return args;
}
