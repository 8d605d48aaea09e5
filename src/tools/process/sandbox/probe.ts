import { execFile } from 'node:child_process';
import path from 'node:path';
import { choosePrivateTemp, existingHomes, resolveConfinementPlan, type SandboxMode, type SandboxStatus } from '../../../host/confinement/index.js';
import { findOnPath } from '../executable.js';
import { bubblewrapArguments } from './bubblewrap-arguments.js';
import { rememberedWorking, rememberWorking, sandboxCircumstances } from './probe-memory.js';

export interface SandboxProbeOptions {
  mode: SandboxMode;
  /** The PATH bubblewrap is looked up on (the host's). */
  pathVariable: string | undefined;
  platform?: NodeJS.Platform;
  /** A file where a working sandbox is remembered between runs (`probe-memory.ts`); none: always probe. */
  memory?: string;
  /** The home directories a run hides: the probe hides them too, as every confined process will. */
  homes?: readonly string[];
}

const probeTimeoutMs = 5000;

/** The fixes for the ways bubblewrap is known to fail, keyed by what it prints. */
const knownFailures: readonly { pattern: RegExp; reason: string; fix: string }[] = [
  {
    pattern: /setting up uid map: Permission denied|No permissions to create new namespace/,
    reason: 'bubblewrap cannot create a user namespace here (Ubuntu 24.04 restricts unprivileged user namespaces through AppArmor)',
    fix:
      'allow them for bwrap with an AppArmor profile: printf \'abi <abi/4.0>,\\ninclude <tunables/global>\\nprofile bwrap /usr/bin/bwrap flags=(unconfined) {\\n  userns,\\n}\\n\' | sudo tee /etc/apparmor.d/bwrap && sudo apparmor_parser -r /etc/apparmor.d/bwrap (or, for the whole machine, sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0)',
  },
  {
    pattern: /Creating new namespace failed: (Operation not permitted|Invalid argument)|unshare.*Operation not permitted/,
    reason: 'bubblewrap may not create namespaces here (user namespaces are disabled, or a container forbids them)',
    fix: 'enable user namespaces: sudo sysctl -w kernel.unprivileged_userns_clone=1 (Debian) or user.max_user_namespaces=15000; in a container, allow namespaces (docker run --security-opt seccomp=unconfined --security-opt apparmor=unconfined)',
  },
];

const installFix = 'install bubblewrap: sudo apt-get install bubblewrap (Debian, Ubuntu), sudo dnf install bubblewrap (Fedora), or your distribution’s bubblewrap package';

function unconfined(mode: SandboxMode, reason: string, fix?: string): SandboxStatus {
  return { confined: false, mode, reason, ...(fix && { fix }) };
}

/**
 * The arguments of a confined process that writes nothing: the namespaces, the host read-only,
 * the homes hidden, a private TMPDIR, no network. What a plan adds to them only binds existing
 * paths, which a working bubblewrap always can.
 */
function probeArguments(homes: readonly string[]): string[] {
  const plan = resolveConfinementPlan({
    writable: [],
    readOnly: [],
    hiddenHomes: existingHomes(homes).filter((home) => home !== path.sep),
    privateTemp: choosePrivateTemp([]),
    hidden: [],
    exposed: [],
    toolchains: [],
    network: { mode: 'none' },
    scope: { workspace: path.sep, roots: [], writable: [], places: [], caches: [] },
  });
  return [...bubblewrapArguments(plan, { file: '/bin/sh', cwd: path.sep, proxy: undefined }), '--', '/bin/sh', '-c', 'echo $$'];
}

/** Runs bubblewrap once as a confined process would be run, and reports what it printed. */
function runProbe(program: string, args: readonly string[]): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    execFile(program, args, { timeout: probeTimeoutMs, env: {}, encoding: 'utf8' }, (error, stdout, stderr) => {
      // In its own PID namespace the command is process 1 or 2; anything else did not confine it.
      const pid = stdout.trim();
      resolve({ ok: !error && (pid === '1' || pid === '2'), output: `${stderr}${error && !stderr ? error.message : ''}`.trim() });
    });
  });
}

/**
 * Decides once per run whether processes will be confined: never with `off`; otherwise only
 * when bubblewrap is on PATH and a real run of it works as a run's processes will be run (its
 * homes hidden: an installed bwrap may still fail, as on Ubuntu 24.04), or worked in the same
 * circumstances within the hour (`memory`). Each unconfined answer says why and what would fix it.
 */
export async function probeSandbox(options: SandboxProbeOptions): Promise<SandboxStatus> {
  const { mode } = options;
  if (mode === 'off') return unconfined(mode, 'the sandbox is off (sandbox: off)', 'use --sandbox auto or required to confine processes');
  if ((options.platform ?? process.platform) !== 'linux') {
    return unconfined(mode, 'the sandbox uses bubblewrap, which exists only on Linux');
  }
  const program = findOnPath('bwrap', options.pathVariable);
  if (!program) return unconfined(mode, 'bubblewrap (bwrap) was not found on PATH', installFix);
  const args = probeArguments(options.homes ?? []);
  const remembered = options.memory === undefined ? undefined : { file: options.memory, circumstances: sandboxCircumstances(program, args) };
  if (remembered?.circumstances && rememberedWorking(remembered.file, remembered.circumstances)) return { confined: true, mode, program };
  const probe = await runProbe(program, args);
  if (probe.ok) {
    if (remembered?.circumstances) rememberWorking(remembered.file, remembered.circumstances);
    return { confined: true, mode, program };
  }
  const said = probe.output.split('\n')[0] ?? '';
  const known = knownFailures.find((failure) => failure.pattern.test(probe.output));
  if (known) return unconfined(mode, `${known.reason}: ${program} said "${said}"`, known.fix);
  return unconfined(mode, `${program} did not start a confined process${said ? `: ${said}` : ''}`, `check that ${path.basename(program)} runs: ${program} --ro-bind / / --unshare-pid true`);
}
