import { spawn } from 'node:child_process';

/**
 * Opens a URL in the user's browser where there is one: the program `$BROWSER` names, else
 * `open` on macOS, else `xdg-open` when a display is there. Whether it worked is not awaited:
 * the URL is printed in any case, so the person can open it by hand.
 */
export function openInBrowser(url: string, env: Readonly<Record<string, string | undefined>>): void {
  const program = env.BROWSER || (process.platform === 'darwin' ? 'open' : env.DISPLAY || env.WAYLAND_DISPLAY ? 'xdg-open' : undefined);
  if (!program) return;
  const child = spawn(program, [url], { stdio: 'ignore', detached: true });
  child.on('error', () => undefined);
  child.unref();
}
