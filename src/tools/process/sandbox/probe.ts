import { realpathSync } from 'node:fs';
import type { SandboxMode, SandboxStatus } from '../../../host/confinement/index.js';
import { HostError, ToolError } from '../../../host/errors.js';
import { isWritableLocation } from '../executable.js';
import type { BackendProbe, ConfinementBackend } from './backend.js';
import { confinementBackends } from './backends.js';
import type { ProbeMemory } from './probe-memory.js';

export interface SandboxProbeOptions {
  mode: SandboxMode;
  /** The host environment: each backend reads its own settings there (`ConfinementBackend.settings`); none set without it. */
  hostEnv?: Readonly<Record<string, string | undefined>>;
  platform?: NodeJS.Platform;
  /** Where a working sandbox is remembered between runs (`probe-memory.ts`); none: always probe. */
  memory?: ProbeMemory;
  /** The home directories a run hides: the probe hides them too, as every confined process will. */
  homes?: readonly string[];
  /** How long a backend's program may take to answer its probe (`probeTimeoutMs` without it). */
  timeoutMs?: number;
}

/** A probe's program that has not answered after this long is taken as unknown, not as failed: a busy machine is slow to start a process. */
export const probeTimeoutMs = 5000;

const platformNames: Partial<Record<NodeJS.Platform, string>> = { linux: 'Linux', darwin: 'macOS', win32: 'Windows', freebsd: 'FreeBSD' };

function unconfined(mode: SandboxMode, reason: string, fix?: string): SandboxStatus {
  return { confined: false, mode, reason, ...(fix && { fix }) };
}

/** Why no backend runs on this system: what the sandbox uses, and where that exists. */
function noBackendReason(): string {
  const names = confinementBackends.map((backend) => backend.name);
  const platforms = [...new Set(confinementBackends.flatMap((backend) => backend.platforms))].map((platform) => platformNames[platform] ?? platform);
  return `the sandbox uses ${names.join(' or ')}, which ${names.length === 1 ? 'exists' : 'exist'} only on ${platforms.join(' and ')}`;
}

/** The registered backend named `name` (a `SandboxStatus.backend`); a status naming none confines nothing, so it is refused. */
export function backendNamed(name: string): ConfinementBackend {
  const backend = confinementBackends.find((candidate) => candidate.name === name);
  if (!backend) throw new ToolError('unsupported', `the sandbox status names the confinement backend "${name}", which rho does not have`);
  return backend;
}

/**
 * What the host settings that change a probe's answer are, as one value: two probes with equal
 * values (and the same mode, homes and system) give the same answer.
 */
export function probeSettings(hostEnv: Readonly<Record<string, string | undefined>> = {}): string {
  return JSON.stringify(confinementBackends.flatMap((backend) => backend.settings.map((name) => [name, hostEnv[name] ?? null])));
}

/**
 * Decides once per run whether processes will be confined: never with `off`; otherwise by the
 * first backend for this system whose probe works (a real start of it, as a run's processes
 * will be started, or one remembered within the hour). Each unconfined answer says why and what
 * would fix it: with no backend that works, the first one's reason. When no backend works and one
 * did not answer in time, whether the run could be confined is unknown: that is a usage error
 * rather than an unconfined run, for `auto` as for `required` (fail closed).
 */
export async function probeSandbox(options: SandboxProbeOptions): Promise<SandboxStatus> {
  const { mode } = options;
  if (mode === 'off') return unconfined(mode, 'the sandbox is off (sandbox: off)', 'use --sandbox auto or required to confine processes');
  const platform = options.platform ?? process.platform;
  const candidates = confinementBackends.filter((backend) => backend.platforms.includes(platform));
  if (candidates.length === 0) return unconfined(mode, noBackendReason());
  const request = { hostEnv: options.hostEnv ?? {}, homes: options.homes ?? [], memory: options.memory, timeoutMs: options.timeoutMs ?? probeTimeoutMs };
  let first: Extract<BackendProbe, { works: false }> | undefined;
  let undecided: Extract<BackendProbe, { works: false }> | undefined;
  for (const backend of candidates) {
    const probe = await backend.probe(request);
    if (probe.works) return { confined: true, mode, backend: backend.name, ...(probe.location !== undefined && { location: probe.location }) };
    first ??= probe;
    if (probe.undecided) undecided ??= probe;
  }
  if (undecided) throw new HostError('usage', `sandbox: ${mode}, but ${undecided.reason}, so whether it confines here is unknown; nothing was run: ${undecided.fix}`);
  return unconfined(mode, first!.reason, first!.fix);
}

/**
 * A confined status whose backend's program lies where this run's steps can write (the workspace
 * or a granted root: a setting pointing into it, or a workspace that holds a system directory)
 * becomes unconfined: a step could replace the program that confines the next one.
 */
export function distrustWritableProgram(status: SandboxStatus, roots: readonly string[]): SandboxStatus {
  if (!status.confined || status.location === undefined) return status;
  const canonical = roots.flatMap((root) => {
    try {
      return [root, realpathSync.native(root)];
    } catch {
      return [root];
    }
  });
  if (!isWritableLocation(status.location, canonical)) return status;
  return unconfined(
    status.mode,
    `${status.backend} at ${status.location} lies where steps can write (the workspace or a granted root), so a step could replace it`,
    backendNamed(status.backend).relocationFix,
  );
}
