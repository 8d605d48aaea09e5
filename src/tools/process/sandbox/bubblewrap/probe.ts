import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { choosePrivateTemp, existingHomes, resolveConfinementPlan } from '../../../../host/confinement/index.js';
import { isExecutableFile } from '../../executable.js';
import { findSystemProgram, systemDirectories } from '../../trusted-programs.js';
import type { BackendProbe, BackendProbeRequest } from '../backend.js';
import { rememberedWorking, rememberWorking } from '../probe-memory.js';
import { bubblewrapArguments, filterDescriptor } from './arguments.js';
import { sandboxCircumstances } from './probe-circumstances.js';
import { filterKnowsArchitecture, seccompFilter } from './seccomp-filter.js';

/**
 * The host variable that names the bubblewrap to trust, an absolute path; without it, bubblewrap
 * is looked for in the system directories only, never on PATH (`trusted-programs.ts`).
 */
export const bubblewrapSetting = 'RHO_BWRAP';

/** More than the probe prints: a program that writes on and on is not bubblewrap. */
const probeOutputBytes = 64 * 1024;

/** The fixes for the ways bubblewrap is known to fail, keyed by what it prints. */
const knownFailures: readonly { pattern: RegExp; reason: string; fix: string }[] = [
  {
    pattern: /setting up uid map: Permission denied|No permissions to create new namespace/,
    reason: 'bubblewrap cannot create a user namespace here (Ubuntu 24.04 restricts unprivileged user namespaces through AppArmor)',
    fix: "allow them for bwrap with an AppArmor profile: printf 'abi <abi/4.0>,\\ninclude <tunables/global>\\nprofile bwrap /usr/bin/bwrap flags=(unconfined) {\\n  userns,\\n}\\n' | sudo tee /etc/apparmor.d/bwrap && sudo apparmor_parser -r /etc/apparmor.d/bwrap (or, for the whole machine, sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0)",
  },
  {
    pattern: /Creating new namespace failed: (Operation not permitted|Invalid argument)|unshare.*Operation not permitted/,
    reason: 'bubblewrap may not create namespaces here (user namespaces are disabled, or a container forbids them)',
    fix: 'enable user namespaces: sudo sysctl -w kernel.unprivileged_userns_clone=1 (Debian) or user.max_user_namespaces=15000; in a container, allow namespaces (docker run --security-opt seccomp=unconfined --security-opt apparmor=unconfined)',
  },
  {
    pattern: /PR_SET_SECCOMP/,
    reason: 'the kernel refused the seccomp filter bubblewrap installs for rho (seccomp filters are not available here)',
    fix: 'run rho on a kernel with seccomp filters (CONFIG_SECCOMP_FILTER, every mainstream distribution has it); in a container, do not forbid seccomp(2) or prctl(PR_SET_SECCOMP)',
  },
];

const installFix =
  'install bubblewrap: sudo apt-get install bubblewrap (Debian, Ubuntu), sudo dnf install bubblewrap (Fedora), or your distribution’s bubblewrap package; or set RHO_BWRAP to the absolute path of a bwrap no step can write';

function failed(reason: string, fix?: string): BackendProbe {
  return { works: false, reason, ...(fix && { fix }) };
}

/**
 * The bubblewrap a run trusts: the one `RHO_BWRAP` names (an absolute path to an executable),
 * else the first `bwrap` in the system directories. Never one on PATH, where a step may have
 * planted a wrapper that adds `--bind / /` (`node_modules/.bin`, which `npm run` puts first).
 */
export function resolveBubblewrap(configured: string | undefined): { program: string } | { reason: string; fix: string } {
  if (configured !== undefined) {
    if (path.isAbsolute(configured) && isExecutableFile(configured)) return { program: path.normalize(configured) };
    return {
      reason: `RHO_BWRAP=${configured} is not the absolute path of an executable file`,
      fix: 'set RHO_BWRAP to the absolute path of bubblewrap (bwrap), or unset it to use the one in the system directories',
    };
  }
  const program = findSystemProgram('bwrap');
  if (program) return { program };
  return { reason: `bubblewrap (bwrap) was not found in the system directories (${systemDirectories.join(', ')}; PATH is not searched)`, fix: installFix };
}

/**
 * What the probe runs in the sandbox: its PID (1 or 2 in a PID namespace of its own) and its
 * seccomp mode (2: a filter is installed), read by the shell itself.
 */
const probeScript = 'echo $$; while read -r key value; do if [ "$key" = Seccomp: ]; then echo "$value"; fi; done < /proc/self/status';

/**
 * The arguments of a confined process that writes nothing: the namespaces, the seccomp filter,
 * the host read-only, the homes hidden, a private TMPDIR, no network. What a plan adds to them
 * only binds existing paths, which a working bubblewrap always can.
 */
function probeArguments(homes: readonly string[]): string[] {
  const plan = resolveConfinementPlan({
    writable: [],
    readOnly: [],
    protected: [],
    acceptedRoots: [],
    grantedTrees: [],
    hiddenHomes: existingHomes(homes).filter((home) => home !== path.sep),
    privateTemp: choosePrivateTemp([]),
    hidden: [],
    exposed: [],
    toolchains: [],
    privatePaths: [],
    network: { mode: 'none' },
    unixSockets: false,
    scope: { workspace: path.sep, roots: [], writable: [], places: [], caches: [] },
  });
  return [...bubblewrapArguments(plan, { programs: ['/bin/sh'], cwd: path.sep, writeMounts: [] }), '--', '/bin/sh', '-c', probeScript];
}

/** Runs bubblewrap once as a confined process would be run (namespaces, filter, hidden homes), and reports what it printed. */
function runProbe(program: string, args: readonly string[], timeoutMs: number): Promise<{ ok: boolean; output: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const child = spawn(program, args, { env: {}, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    const take = (append: (text: string) => void) => (chunk: Buffer) => {
      if (stdout.length + stderr.length < probeOutputBytes) append(chunk.toString('utf8'));
    };
    child.stdout?.on(
      'data',
      take((text) => (stdout += text)),
    );
    child.stderr?.on(
      'data',
      take((text) => (stderr += text)),
    );
    const filter = child.stdio[filterDescriptor] as Writable;
    filter.on('error', () => undefined);
    filter.end(seccompFilter({ unixSockets: false }));
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ ok: false, output: error.message, timedOut: false });
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const [pid, seccomp] = stdout.trim().split('\n');
      const failed = code !== 0 ? `${program} ${signal ? `was killed by ${signal}` : `exited with code ${code}`}` : '';
      resolve({ ok: !timedOut && code === 0 && (pid === '1' || pid === '2') && seccomp === '2', output: (stderr.trim() || failed).trim(), timedOut });
    });
  });
}

/**
 * Whether bubblewrap confines here: only when a trusted bubblewrap exists (`resolveBubblewrap`)
 * and a real run of it works as a run's processes will be run (its homes hidden: an installed
 * bwrap may still fail, as on Ubuntu 24.04), or worked in the same circumstances within the hour
 * (`request.memory`). Each failure says why and what would fix it.
 */
export async function probeBubblewrap(request: BackendProbeRequest): Promise<BackendProbe> {
  if (!filterKnowsArchitecture()) return failed(`rho's seccomp filter knows x86_64 and aarch64, not ${process.arch}`);
  const found = resolveBubblewrap(request.hostEnv[bubblewrapSetting]);
  if (!('program' in found)) return failed(found.reason, found.fix);
  const { program } = found;
  const args = probeArguments(request.homes);
  const remembered = request.memory === undefined ? undefined : { memory: request.memory, circumstances: sandboxCircumstances(program, args) };
  if (remembered?.circumstances && rememberedWorking(remembered.memory, remembered.circumstances)) return { works: true, location: program };
  const probe = await runProbe(program, args, request.timeoutMs);
  if (probe.ok) {
    if (remembered?.circumstances) rememberWorking(remembered.memory, remembered.circumstances);
    return { works: true, location: program };
  }
  if (probe.timedOut) {
    return {
      works: false,
      undecided: true,
      reason: `${program} did not answer its probe within ${request.timeoutMs / 1000} s`,
      fix: 'run again when the machine is less busy, or choose --sandbox off to run unconfined',
    };
  }
  const said = probe.output.split('\n')[0] ?? '';
  const known = knownFailures.find((failure) => failure.pattern.test(probe.output));
  if (known) return failed(`${known.reason}: ${program} said "${said}"`, known.fix);
  return failed(`${program} did not start a confined process${said ? `: ${said}` : ''}`, `check that ${path.basename(program)} runs: ${program} --ro-bind / / --unshare-pid true`);
}
