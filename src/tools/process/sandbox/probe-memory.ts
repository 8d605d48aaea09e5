import { mkdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openSealed, sealText, type DigestKey } from '../../../host/keyed-digest.js';
import { seccompFilterDigest } from './seccomp-filter.js';

/*
 * A sandbox that worked, remembered so that the next run on the same machine need not start
 * bubblewrap just to ask again (a probe costs a run 5–10 ms). Only a working sandbox is
 * remembered: a stale memory can make confined processes fail to start, never run unconfined.
 * What it is tied to is everything the probe's answer depends on: the trusted program the run
 * found (its path, the file that resolves to, and that file's identity; a memory never names
 * the program, so it cannot make a run use another one), the boot, the namespaces this process
 * runs in (a container, or another sandbox, has its own), the kernel settings for user
 * namespaces, the user, and the probe's own arguments (the homes it hides among them) and seccomp
 * filter. What none of these show (an AppArmor profile changed without a reboot) is caught by the
 * memory's age: it holds for an hour at most. The memory, its time included, is sealed with the
 * user's key: one written or touched by anyone else is not believed, and the probe runs again.
 */

const rememberedForMs = 60 * 60 * 1000;

/** Where to remember, and the key that seals what is remembered. */
export interface ProbeMemory {
  file: string;
  key: DigestKey;
}

const purpose = 'rho sandbox-probe';

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

/** Whether the memory holds a sandbox that worked in exactly these circumstances, within the last hour. */
export function rememberedWorking(memory: ProbeMemory, circumstances: string, now = Date.now()): boolean {
  try {
    const body = openSealed(memory.key, purpose, readFileSync(memory.file, 'utf8'));
    const newline = body?.indexOf('\n') ?? -1;
    if (body === undefined || newline < 0 || body.slice(newline + 1) !== circumstances) return false;
    const age = now - Number(body.slice(0, newline));
    return age >= 0 && age < rememberedForMs;
  } catch {
    return false;
  }
}

/** Remembers that the sandbox worked in these circumstances, now (written whole, private to the user); failures are ignored. */
export function rememberWorking(memory: ProbeMemory, circumstances: string, now = Date.now()): void {
  const partial = `${memory.file}.${process.pid}.tmp`;
  try {
    mkdirSync(path.dirname(memory.file), { recursive: true, mode: 0o700 });
    writeFileSync(partial, sealText(memory.key, purpose, `${now}\n${circumstances}`), { mode: 0o600 });
    renameSync(partial, memory.file);
  } catch {
    rmSync(partial, { force: true });
  }
}
