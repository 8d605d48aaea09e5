import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readlinkSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import type { SandboxCommand, SharedNetwork } from '../../../../host/confinement/index.js';
import { ToolError } from '../../../../host/errors.js';
import { isWritableLocation } from '../../executable.js';
import { findSystemProgram } from '../../trusted-programs.js';
import type { ShareNetworkRequest } from '../backend.js';
import { baseArguments, filterDescriptor, seccompArguments } from './arguments.js';
import { seccompFilter } from './seccomp-filter.js';

/*
 * One network namespace for all of a run's sandboxes behind the proxy. bubblewrap starts it once,
 * with a user namespace of its own that owns it (no `--dev`: with it an unprivileged bubblewrap
 * moves its program into a second user namespace, which does not own the network one, and no
 * `--disable-userns`: each sandbox makes its own user namespace inside this one), and runs the
 * proxy's forwarder there. Each sandbox then joins it: util-linux's nsenter, from the system
 * directories like bubblewrap, enters its user and network namespaces (keeping the user's
 * credentials) and execs bubblewrap with the sandbox's arguments less `--unshare-net` — one exec
 * more instead of a Node start. The namespaces are named through descriptors rho holds
 * (`/proc/RHO/fd/N`), opened once the namespace is up and checked against what bubblewrap
 * reported, so a reused pid can never stand for them; nothing of them is passed into a sandbox.
 */

/** The descriptor bubblewrap writes what it started on (`--info-fd`): the first after the filter's. */
const infoDescriptor = filterDescriptor + 1;

/** More than bubblewrap's report: a longer one is not bubblewrap's. */
const infoBytes = 4096;

/** How long the trial join may take before sharing counts as impossible here. */
const trialMs = 5000;

/** The namespace's own arguments: a user, PID, IPC and network namespace (loopback only), the host read-only, a filter as every sandbox has. */
const namespaceArguments: readonly string[] = [
  '--die-with-parent',
  '--unshare-user',
  '--unshare-net',
  '--unshare-pid',
  '--unshare-ipc',
  '--new-session',
  '--cap-drop',
  'ALL',
  '--ro-bind',
  '/',
  '/',
  '--proc',
  '/proc',
  ...seccompArguments,
  '--info-fd',
  String(infoDescriptor),
];

function unsupported(message: string): ToolError {
  return new ToolError('unsupported', `the sandboxes cannot share a network namespace here: ${message}`);
}

/** The nsenter to trust: the first in the system directories, unless it lies where steps write. */
function trustedNsenter(untrusted: readonly string[]): string {
  const nsenter = findSystemProgram('nsenter');
  if (!nsenter) throw unsupported('nsenter (util-linux) is not in the system directories');
  if (isWritableLocation(nsenter, untrusted)) throw unsupported(`${nsenter} lies where steps can write`);
  return nsenter;
}

/** What bubblewrap reports once the namespaces exist: the host pid of the sandbox's first process, and its network namespace's inode. */
function readReport(stream: Readable, child: ChildProcess): Promise<{ pid: number; network: number }> {
  return new Promise((resolve, reject) => {
    let text = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      text += chunk;
      if (text.length > infoBytes) stream.destroy();
    });
    stream.once('close', () => {
      try {
        const report = JSON.parse(text) as Record<string, unknown>;
        const pid = report['child-pid'];
        const network = report['net-namespace'];
        if (Number.isInteger(pid) && Number.isInteger(network)) return resolve({ pid: pid as number, network: network as number });
      } catch {
        // Reported below.
      }
      reject(unsupported('bubblewrap did not report the namespace it started'));
    });
    child.once('error', (error) => reject(unsupported(error.message)));
  });
}

/** Opens the namespace's user and network namespaces, checked against the report: the network one is the one reported, the user one is not rho's. */
function holdNamespaces(report: { pid: number; network: number }): { user: number; network: number } {
  const opened: number[] = [];
  try {
    for (const kind of ['user', 'net']) opened.push(openSync(`/proc/${report.pid}/ns/${kind}`, 'r'));
    const [user, network] = opened as [number, number];
    if (readlinkSync(`/proc/self/fd/${network}`) !== `net:[${report.network}]` || readlinkSync(`/proc/self/fd/${user}`) === readlinkSync('/proc/self/ns/user')) {
      throw unsupported('the namespace bubblewrap reported is not the one found');
    }
    return { user, network };
  } catch (error) {
    for (const descriptor of opened) closeSync(descriptor);
    throw error instanceof ToolError ? error : unsupported((error as Error).message);
  }
}

/** Sends SIGKILL to `pid` if it is still there. */
function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Runs `file args` to its end and says whether it exited with 0 (within `trialMs`). */
function succeeds(file: string, args: readonly string[]): Promise<boolean> {
  return new Promise((resolve) => {
    const trial = spawn(file, args, { stdio: 'ignore', env: {} });
    const timer = setTimeout(() => trial.kill('SIGKILL'), trialMs);
    trial.once('error', () => resolve(false));
    trial.once('close', (code) => {
      clearTimeout(timer);
      resolve(code === 0);
    });
  });
}

/**
 * Starts the run's shared network namespace running `request.forwarder`, and tries a sandbox's
 * join of it for real (nsenter into it, then bubblewrap as every sandbox starts); rejects with
 * why it cannot be shared here (no trusted nsenter, a kernel or bubblewrap that refuses), and
 * the run gives each sandbox a namespace of its own instead.
 */
export async function shareBubblewrapNetwork(request: ShareNetworkRequest): Promise<SharedNetwork> {
  const { forwarder, location } = request;
  if (location === undefined) throw new ToolError('internal', 'a bubblewrap sandbox needs the location of the bwrap its probe found (SandboxStatus.location)');
  const nsenter = trustedNsenter(request.untrusted);
  const child = startNamespace(location, forwarder);
  const ready = request.serve(child);
  // Awaited below, unless the start fails first.
  ready.catch(() => undefined);
  const ended = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let report: { pid: number; network: number } | undefined;
  const stop = () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    // The namespace's first process first: stopped before it has set itself to die with bubblewrap, it would outlive it.
    if (report) killQuietly(report.pid);
    child.kill('SIGKILL');
  };
  let held: { user: number; network: number };
  try {
    report = await readReport(child.stdio[infoDescriptor] as Readable, child);
    held = holdNamespaces(report);
  } catch (error) {
    stop();
    throw error;
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    closeSync(held.user);
    closeSync(held.network);
  };
  void ended.then(release);
  const enter = (file: string, args: readonly string[]) => ({
    file: nsenter,
    args: [`--user=/proc/${process.pid}/fd/${held.user}`, `--net=/proc/${process.pid}/fd/${held.network}`, '--preserve-credentials', '--', file, ...args],
  });
  const fail = (error: ToolError) => {
    stop();
    release();
    return error;
  };
  // Once the forwarder runs, bubblewrap has set the namespace up (its user namespace's maps among it): joining it before could fail.
  const gone = ended.then(() => Promise.reject(unsupported('it ended as it started')));
  gone.catch(() => undefined);
  try {
    await Promise.race([ready, gone]);
  } catch (error) {
    throw fail(error instanceof ToolError ? error : unsupported((error as Error).message));
  }
  const trial = enter(location, [...baseArguments, '--', '/bin/sh', '-c', 'exit 0']);
  if (!(await succeeds(trial.file, trial.args))) throw fail(unsupported(`${nsenter} could not start a sandbox inside it`));
  // Started: the run closes it, and until then it keeps no event loop alive by itself.
  child.unref();
  child.channel?.unref();
  return {
    channel: child,
    ended,
    enter,
    close: () => {
      stop();
      release();
    },
  };
}

/** Spawns bubblewrap with the namespace's arguments, running the forwarder with the spawn's IPC channel, and gives it the filter. */
function startNamespace(location: string, forwarder: SandboxCommand): ChildProcess {
  const child = spawn(location, [...namespaceArguments, '--', forwarder.file, ...forwarder.args], {
    env: forwarder.env,
    stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe', 'ipc'],
    serialization: 'json',
    // A group of its own, as every sandbox has: a terminal's Ctrl-C reaches rho, which ends it with the run, not the forwarder under steps still stopping.
    detached: true,
  });
  const filter = child.stdio[filterDescriptor] as Writable;
  filter.on('error', () => undefined);
  filter.end(seccompFilter({ unixSockets: false }));
  return child;
}
