import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CallConfinement } from '../../../host/confinement/index.js';
import { findOnPath } from '../executable.js';
import { bubblewrapArguments } from './bubblewrap-arguments.js';

/** What starting one process takes: an absolute program, its argv, where, and the whole environment. */
export interface LaunchTarget {
  file: string;
  args: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
}

/** The launch to spawn, and what to do once the process (and everything it started) is gone. */
export interface SandboxedLaunch extends LaunchTarget {
  /** Removes the call's private temporary directory; safe to call more than once. */
  release(): void;
}

/** Where private temporary directories are made: the process's TMPDIR when it has one, else rho's. */
function temporaryBase(env: Readonly<Record<string, string>>): string {
  const fromEnv = env.TMPDIR;
  return fromEnv && path.isAbsolute(fromEnv) ? fromEnv : os.tmpdir();
}

/**
 * Wraps a launch in the sandbox when the run confines processes: the program becomes
 * bubblewrap, the original argv follows `--`, and the process gets a private TMPDIR (writable,
 * removed by `release`). Unconfined launches are returned as they are.
 */
export function sandboxLaunch(target: LaunchTarget, confinement: CallConfinement | undefined): SandboxedLaunch {
  if (!confinement?.status.confined) return { ...target, release: () => {} };
  const tempDir = mkdtempSync(path.join(temporaryBase(target.env), 'rho-sandbox-'));
  const release = () => rmSync(tempDir, { recursive: true, force: true });
  try {
    const proxy = confinement.plan.network.mode === 'proxy' ? confinement.proxy : undefined;
    // A bare name (a hook's `node`) is found on the process's PATH, as bubblewrap itself will find it.
    const program = path.isAbsolute(target.file) ? target.file : (findOnPath(target.file, target.env.PATH) ?? target.file);
    const args = bubblewrapArguments(confinement.plan, { file: program, cwd: target.cwd, tempDir, proxy });
    const env = { ...target.env, ...proxy?.env, TMPDIR: tempDir };
    return { file: confinement.status.program, args: [...args, '--', target.file, ...target.args], cwd: target.cwd, env, release };
  } catch (error) {
    release();
    throw error;
  }
}
