import { readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { seccompFilterDigest } from './seccomp-filter.js';

/*
 * What a remembered working bubblewrap (`../probe-memory.ts`) is tied to: the trusted program the
 * run found (its path, the file that resolves to, and that file's identity; a memory never names
 * the program, so it cannot make a run use another one), the boot, the namespaces this process
 * runs in (a container, or another sandbox, has its own), the kernel settings for user
 * namespaces, the user, and the probe's own arguments (the homes it hides among them) and seccomp
 * filter. What none of these show (an AppArmor profile changed without a reboot) is caught by the
 * memory's age.
 */

const readOrAbsent = (file: string): string => {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return '-';
  }
};

/** What the probe's answer for `program` run with `args` depends on, or undefined where it cannot be told (no /proc). */
export function sandboxCircumstances(program: string, args: readonly string[]): string | undefined {
  try {
    const { dev, ino, size, mtimeMs } = statSync(program);
    return JSON.stringify([
      'rho-sandbox-probe 2',
      program,
      realpathSync(program),
      dev,
      ino,
      size,
      mtimeMs,
      process.getuid?.() ?? -1,
      readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
      ...['user', 'mnt', 'pid', 'net'].map((namespace) => readlinkSync(`/proc/self/ns/${namespace}`)),
      ...['/proc/sys/kernel/unprivileged_userns_clone', '/proc/sys/user/max_user_namespaces', '/proc/sys/kernel/apparmor_restrict_unprivileged_userns'].map(readOrAbsent),
      args.join(' '),
      seccompFilterDigest(),
    ]);
  } catch {
    return undefined;
  }
}
