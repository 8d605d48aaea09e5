import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openSealed, sealText, type DigestKey } from '../../../host/keyed-digest.js';

/*
 * A sandbox that worked, remembered so that the next run on the same machine need not start it
 * just to ask again (a probe costs a run 5–10 ms). Only a working sandbox is remembered: a stale
 * memory can make confined processes fail to start, never run unconfined. What it is tied to is
 * a backend's circumstances: everything its probe's answer depends on, as the backend states
 * them in its folder. What those cannot show is caught by the
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
