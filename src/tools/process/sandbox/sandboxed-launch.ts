import path from 'node:path';
import { resolveConfinementPlan, type CallConfinement } from '../../../host/confinement/index.js';
import { findOnPath } from '../executable.js';
import { bubblewrapArguments } from './bubblewrap-arguments.js';
import { prepareWritableTrees } from './writable-trees.js';

/** What starting one process takes: an absolute program, its argv, where, and the whole environment. */
export interface LaunchTarget {
  file: string;
  args: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
}

/** A launch to spawn, and what to close once the process (and everything it started) is gone. */
export interface SandboxedLaunch extends LaunchTarget {
  /**
   * Closes the process's way to the network proxy, if it has one, and removes the granted trees
   * created for it that it left empty; safe to call more than once.
   */
  release(): void;
}

/**
 * Wraps a launch in the sandbox when the run confines processes: the program becomes
 * bubblewrap, the original argv follows `--`, and TMPDIR points at the private temp (an
 * in-memory file system that ends with the process). The plan is resolved on disk first, and a
 * writable root that a link moved out of what the policy grants refuses the launch. A process whose network is the proxy runs
 * behind the proxy's forwarder, with a socket of its own (closed by `release`). Granted trees
 * that do not exist are created for the mount, and removed by `release` if left empty.
 * Unconfined launches are returned as they are.
 */
export function sandboxLaunch(target: LaunchTarget, confinement: CallConfinement | undefined): SandboxedLaunch {
  if (!confinement?.status.confined) return { ...target, release: () => {} };
  const { plan } = confinement;
  const proxy = plan.network.mode === 'proxy' ? confinement.proxy?.open() : undefined;
  let trees: { release(): void } | undefined;
  const release = () => {
    proxy?.close();
    trees?.release();
  };
  try {
    // Resolved now, right before the start: an earlier step may have planted a link since the plan was made.
    const resolved = resolveConfinementPlan(plan, confinement.home);
    trees = prepareWritableTrees(resolved);
    // A bare name (a hook's `node`) is found on the process's PATH, as bubblewrap itself will find it.
    const program = path.isAbsolute(target.file) ? target.file : (findOnPath(target.file, target.env.PATH) ?? target.file);
    const args = bubblewrapArguments(resolved, { file: program, cwd: target.cwd, proxy });
    const env = { ...target.env, ...(plan.privateTemp && { TMPDIR: plan.privateTemp }) };
    const command = proxy ? proxy.command({ file: program, args: target.args, env }) : { file: target.file, args: target.args, env };
    return { file: confinement.status.program, args: [...args, '--', command.file, ...command.args], cwd: target.cwd, env: command.env, release };
  } catch (error) {
    release();
    throw error;
  }
}
