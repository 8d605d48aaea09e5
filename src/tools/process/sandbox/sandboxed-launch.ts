import type { Writable } from 'node:stream';
import { resolveConfinementPlan, type CallConfinement, type SandboxChannel } from '../../../host/confinement/index.js';
import type { ToolError } from '../../../host/errors.js';
import { bubblewrapArguments, filterDescriptor } from './bubblewrap-arguments.js';
import { seccompFilter } from './seccomp-filter.js';
import { prepareWritableTrees } from './writable-trees.js';

/** What starting one process takes: an absolute program, its argv, where, and the whole environment. */
export interface LaunchTarget {
  file: string;
  args: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
}

/** The child a launch was spawned as, as far as `attach` needs it: its descriptors from 3 on, and its IPC channel. */
export interface SpawnedSandbox extends SandboxChannel {
  readonly stdio: readonly unknown[];
}

/** A launch to spawn, and what to close once the process (and everything it started) is gone. */
export interface SandboxedLaunch extends LaunchTarget {
  /**
   * What the child gets after stdin, stdout and stderr, from descriptor 3 on: the seccomp filter
   * bubblewrap reads, then the proxy's channel (Node's `ipc`) when the network is the proxy.
   */
  extraStdio: readonly ('pipe' | 'ipc')[];
  /** Gives the spawned child what it reads on those descriptors; call it right after the spawn. */
  attach(child: SpawnedSandbox): void;
  /** The first connection rho's proxy refused the process, if any: a failure after one is that denial. */
  networkRefusal(): ToolError | undefined;
  /**
   * Closes the process's way to the network proxy, if it has one, and removes the granted trees
   * created for it that it left empty; safe to call more than once.
   */
  release(): void;
}

/**
 * Wraps a launch in the sandbox when the run confines processes: the program becomes
 * bubblewrap, the original argv follows `--`, TMPDIR points at the private temp (an in-memory
 * file system that ends with the process), and bubblewrap installs the seccomp filter it reads
 * on descriptor 3. The plan is resolved on disk first, and a writable root that a link moved out
 * of what the policy grants refuses the launch. A process whose network is the proxy runs behind
 * the proxy's forwarder, which learns the program and its environment over the sandbox's channel
 * (closed by `release`), so neither is on any argv. Granted trees that do not exist are created
 * for the mount, and removed by `release` if left empty. Unconfined launches are returned as
 * they are.
 */
export function sandboxLaunch(target: LaunchTarget, confinement: CallConfinement | undefined): SandboxedLaunch {
  if (!confinement?.status.confined) return { ...target, extraStdio: [], attach: () => {}, networkRefusal: () => undefined, release: () => {} };
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
    const args = bubblewrapArguments(resolved, { file: target.file, cwd: target.cwd, proxy });
    const env = { ...target.env, ...(plan.privateTemp && { TMPDIR: plan.privateTemp }) };
    const program = { file: target.file, args: target.args, env };
    const command = proxy ? proxy.command() : program;
    const filter = seccompFilter({ unixSockets: plan.unixSockets });
    return {
      file: confinement.status.program,
      args: [...args, '--', command.file, ...command.args],
      cwd: target.cwd,
      env: command.env,
      extraStdio: proxy ? ['pipe', 'ipc'] : ['pipe'],
      attach(child) {
        const descriptor = child.stdio[filterDescriptor] as Writable;
        // bubblewrap reads the filter to its end before it starts anything; a sandbox that failed to start reads nothing.
        descriptor.on('error', () => undefined);
        descriptor.end(filter);
        proxy?.attach(child, program);
      },
      networkRefusal: () => proxy?.refusal(),
      release,
    };
  } catch (error) {
    release();
    throw error;
  }
}
