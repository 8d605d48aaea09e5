import { rm } from 'node:fs/promises';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cliPath, temporaryDirectories, writeFiles } from '../support/cli.js';
import { waitFor } from '../support/wait-for.js';
import { wideningFlow } from '../support/widening-flow.js';

/** A person at a terminal: `rho run --watch` runs in a pseudo-terminal (tmux) and the test answers its question. */
const socket = `rho-watch-e2e-${process.pid}`;
let socketPath: string | undefined;
const directories = temporaryDirectories();

const tmux = (...args: string[]) => execa('tmux', ['-L', socket, ...args]);
const screen = async (session: string) => (await tmux('capture-pane', '-p', '-S', '-200', '-t', session)).stdout;

afterAll(async () => {
  await tmux('kill-server').catch(() => undefined);
  if (socketPath) await rm(socketPath, { force: true });
  await directories.removeAll();
});

describe('rho run --watch at a terminal', () => {
  it('asks before running a workflow whose policy a step widened: no waits for the next change, yes runs it from then on', async () => {
    const dir = await directories.make();
    await writeFiles(dir, { 'flow.yml': wideningFlow });
    const session = 'widen';
    await tmux(
      'new-session',
      '-d',
      '-s',
      session,
      '-x',
      '150',
      '-y',
      '50',
      '-c',
      dir,
      `env -u CI -u GITHUB_ACTIONS node ${cliPath} run flow.yml --watch --output plain; sleep 300`,
    );
    socketPath ??= (await tmux('display-message', '-p', '#{socket_path}')).stdout.trim();
    const shows =
      (text: string, after = 0) =>
      async () => {
        const shown = await screen(session);
        return shown.split(text).length - 1 > after ? shown : undefined;
      };
    const question = 'Run it with this authority from now on?';
    await waitFor(shows(question), 'the question');
    expect(await screen(session)).toContain('policy.sandbox: "auto" → "off"');
    await tmux('send-keys', '-t', session, 'n', 'Enter');
    await waitFor(shows('not run; waiting for changes'), 'the refusal');
    expect(await screen(session)).not.toContain('run 2');
    // The next change asks again.
    await writeFiles(dir, { 'touched.txt': '' });
    await waitFor(shows(question, 1), 'the question again');
    await tmux('send-keys', '-t', session, 'y', 'Enter');
    const ran = await waitFor(shows('run 2 ended with exit 0'), 'the confirmed run');
    expect(ran).toMatch(/Sandbox off/);
    await tmux('send-keys', '-t', session, 'C-c');
    await waitFor(
      async () =>
        (await screen(session)).includes('[widen]') && !(await tmux('list-panes', '-t', session, '-F', '#{pane_current_command}')).stdout.includes('node') ? true : undefined,
      'the watch to end',
    );
  }, 60_000);
});
