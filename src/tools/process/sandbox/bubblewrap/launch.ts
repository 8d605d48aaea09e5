import { constants } from 'node:os';
import type { Writable } from 'node:stream';
import { ToolError } from '../../../../host/errors.js';
import type { BackendLaunch, ConfinedStart, ProcessEnd } from '../backend.js';
import { bubblewrapArguments, filterDescriptor } from './arguments.js';
import { seccompFilter } from './seccomp-filter.js';
import { terminateSandbox } from './signals.js';

/**
 * Runs a confined start under bubblewrap: the program becomes bubblewrap (the one the probe
 * found), the command follows `--`, and bubblewrap installs the seccomp filter it reads on
 * descriptor 3 before it starts anything. A start that joins the run's shared network runs
 * bubblewrap inside it (`shared-network.ts`), without a network namespace of its own.
 */
export function launchBubblewrap(start: ConfinedStart): BackendLaunch {
  if (start.location === undefined) throw new ToolError('internal', 'a bubblewrap sandbox needs the location of the bwrap its probe found (SandboxStatus.location)');
  const args = bubblewrapArguments(start.plan, { programs: start.programs, cwd: start.cwd, writeMounts: start.writeMounts, joinsNetwork: start.network !== undefined });
  const command = [...args, '--', start.command.file, ...start.command.args];
  const spawned = start.network ? start.network.enter(start.location, command) : { file: start.location, args: command };
  const filter = seccompFilter({ unixSockets: start.plan.unixSockets });
  let stopped = false;
  return {
    file: spawned.file,
    args: spawned.args,
    env: start.command.env,
    extraStdio: ['pipe'],
    attach(child) {
      const descriptor = child.stdio[filterDescriptor] as Writable;
      // bubblewrap reads the filter to its end before it starts anything; a sandbox that failed to start reads nothing.
      descriptor.on('error', () => undefined);
      descriptor.end(filter);
    },
    terminate(leader, graceMs) {
      stopped = true;
      return terminateSandbox(leader, graceMs);
    },
    exitStatus: (exitCode, signal) => (stopped ? programExit(exitCode, signal) : { exitCode, signal }),
  };
}

/**
 * bubblewrap's exit code for a program killed by a signal (128 + N), as that signal: bubblewrap
 * exits with 128 + N when its program was killed by signal N, which, once rho has stopped it, is
 * reported as that signal.
 */
function programExit(exitCode: number | null, signal: NodeJS.Signals | null): ProcessEnd {
  const killedBy = exitCode !== null && exitCode > 128 ? Object.entries(constants.signals).find(([, number]) => number === exitCode - 128)?.[0] : undefined;
  return killedBy ? { exitCode: null, signal: killedBy as NodeJS.Signals } : { exitCode, signal };
}
