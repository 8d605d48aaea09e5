import type { SandboxStatus } from '../host/confinement/index.js';
import { probeSandbox, probeSettings, type SandboxProbeOptions } from '../tools/process/sandbox/probe.js';
import { homeDirectories } from '../workflow/user-home.js';
import { privateStoreOf, sandboxProbeMemory } from './cache-places.js';

export type SandboxProbe = (options: SandboxProbeOptions) => Promise<SandboxStatus>;

/**
 * Starts the run's sandbox probe as soon as the command line is parsed, so that the sandbox starts
 * while the run's own modules load instead of after them (a one-step run waited about 20 ms for
 * it). The run asks the same question the probe answers (`auto`, the host's settings of the
 * backends, the homes it hides) once; that first ask gets this answer, any other ask probes again. Nothing is started when `--sandbox
 * off` leaves the run no question to ask. A sandbox that worked is remembered in the user's
 * cache (`sandbox-probe`, sealed with the user's key), so the next runs within the hour need not
 * start it at all.
 */
export function startSandboxProbe(sandboxFlag: string | undefined, env: Readonly<Record<string, string | undefined>>): SandboxProbe | undefined {
  if (sandboxFlag === 'off') return undefined;
  const settings = probeSettings(env);
  const homes = homeDirectories(env);
  const file = sandboxProbeMemory(env);
  const key = file === undefined ? undefined : privateStoreOf(env)?.key;
  const memory = file !== undefined && key !== undefined ? { file, key } : undefined;
  let started: Promise<SandboxStatus> | undefined = probeSandbox({ mode: 'auto', hostEnv: env, homes, ...(memory && { memory }) });
  // Unhandled until the run asks; the run reports what it finds.
  started.catch(() => undefined);
  return (options) => {
    const early = started;
    started = undefined;
    const sameHomes = (options.homes ?? []).join('\0') === homes.join('\0');
    return early && options.mode === 'auto' && probeSettings(options.hostEnv) === settings && sameHomes && options.platform === undefined ? early : probeSandbox(options);
  };
}
