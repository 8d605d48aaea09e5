import { mkdirSync, readFileSync, readlinkSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/*
 * A sandbox that worked, remembered so that the next run on the same machine need not start
 * bubblewrap just to ask again (a probe costs a run 5–10 ms). Only a working sandbox is
 * remembered: a stale memory can make confined processes fail to start, never run unconfined.
 * What it is tied to is everything the probe's answer depends on: the program (by path and
 * identity), the boot, the namespaces this process runs in (a container, or another sandbox, has
 * its own), the kernel settings for user namespaces, the user and the probe's own arguments (the homes it hides among them).
 * What none of these show (an AppArmor profile changed without a reboot) is caught by the memory's
 * age: it holds for an hour at most.
 */

const rememberedForMs = 60 * 60 * 1000;

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
      'rho-sandbox-probe 1',
      program,
      dev,
      ino,
      size,
      mtimeMs,
      process.getuid?.() ?? -1,
      readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
      ...['user', 'mnt', 'pid', 'net'].map((namespace) => readlinkSync(`/proc/self/ns/${namespace}`)),
      ...['/proc/sys/kernel/unprivileged_userns_clone', '/proc/sys/user/max_user_namespaces', '/proc/sys/kernel/apparmor_restrict_unprivileged_userns'].map(readOrAbsent),
      args.join(' '),
    ]);
  } catch {
    return undefined;
  }
}

/** Whether `file` remembers a sandbox that worked in exactly these circumstances, within the last hour. */
export function rememberedWorking(file: string, circumstances: string, now = Date.now()): boolean {
  try {
    const age = now - statSync(file).mtimeMs;
    return age >= 0 && age < rememberedForMs && readFileSync(file, 'utf8') === circumstances;
  } catch {
    return false;
  }
}

/** Remembers that the sandbox worked in these circumstances (written whole, private to the user); failures are ignored. */
export function rememberWorking(file: string, circumstances: string): void {
  const partial = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(partial, circumstances, { mode: 0o600 });
    renameSync(partial, file);
  } catch {
    rmSync(partial, { force: true });
  }
}

