import os from 'node:os';

/** The names `platforms:` takes: an operating system, or `unix` for every one but Windows. */
export const platformNames = ['linux', 'macos', 'windows', 'freebsd', 'openbsd', 'unix'] as const;
export type PlatformName = (typeof platformNames)[number];

/** The name a Node platform goes by in `platforms:` (`darwin` is macos, `win32` windows). */
export function platformNameOf(platform: NodeJS.Platform): string {
  if (platform === 'darwin') return 'macos';
  if (platform === 'win32') return 'windows';
  return platform;
}

function runsOn(names: readonly PlatformName[], platform: NodeJS.Platform): boolean {
  const current = platformNameOf(platform);
  return names.some((name) => name === current || (name === 'unix' && platform !== 'win32'));
}

/**
 * Why a step does not run here, when its own `platforms:` or its task's leave this platform out
 * (the task's reason first: it is the wider one); undefined when it runs.
 */
export function platformSkipReason(
  task: { name: string | undefined; platforms: readonly PlatformName[] | undefined },
  step: readonly PlatformName[] | undefined,
  platform: NodeJS.Platform = os.platform(),
): string | undefined {
  const here = `this is ${platformNameOf(platform)}`;
  if (task.platforms && !runsOn(task.platforms, platform)) return `task ${task.name ?? '(default)'} runs only on ${task.platforms.join(', ')} (${here})`;
  if (step && !runsOn(step, platform)) return `it runs only on ${step.join(', ')} (${here})`;
  return undefined;
}
