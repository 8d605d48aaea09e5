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

/**
 * Wraps a launch in the sandbox when the run confines processes: the program becomes
 * bubblewrap, the original argv follows `--`, and TMPDIR points at the private temp (an
 * in-memory file system that ends with the process). Unconfined launches are returned as they are.
 */
export function sandboxLaunch(target: LaunchTarget, confinement: CallConfinement | undefined): LaunchTarget {
  if (!confinement?.status.confined) return target;
  const { plan } = confinement;
  const proxy = plan.network.mode === 'proxy' ? confinement.proxy : undefined;
  // A bare name (a hook's `node`) is found on the process's PATH, as bubblewrap itself will find it.
  const program = path.isAbsolute(target.file) ? target.file : (findOnPath(target.file, target.env.PATH) ?? target.file);
  const args = bubblewrapArguments(plan, { file: program, cwd: target.cwd, proxy });
  const env = { ...target.env, ...proxy?.env, ...(plan.privateTemp && { TMPDIR: plan.privateTemp }) };
  return { file: confinement.status.program, args: [...args, '--', target.file, ...target.args], cwd: target.cwd, env };
}
