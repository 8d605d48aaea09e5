import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cliPath, makeTempDir, writeFiles } from '../support/cli.js';
import { waitFor } from '../support/wait-for.js';

/** The listr2 renderer on a real terminal (tmux): steps that run at once spin at once. */
const socket = `rho-parallel-fancy-${process.pid}`;
const cleanups: (() => Promise<void>)[] = [];
const workspaces: string[] = [];
let socketPath: string | undefined;

const tmux = (...args: string[]) => execa('tmux', ['-L', socket, ...args]);
const screen = async () => (await tmux('capture-pane', '-p', '-t', 'fancy')).stdout;

afterAll(async () => {
  // The tickers stop by themselves once told to, also when an assertion failed mid-run.
  for (const dir of workspaces) await writeFile(path.join(dir, 'stop'), '').catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 300));
  await tmux('kill-server').catch(() => undefined);
  if (socketPath) await rm(socketPath, { force: true });
  for (const cleanup of cleanups) await cleanup();
});

const workflow = `version: 1
name: fancy parallel
max_parallel: 2
policy:
  allow: ["process(node tick.mjs)"]
steps:
  - { id: alpha, name: Alpha ticks, tool: exec, with: { command: node, args: [tick.mjs, alpha] }, timeout: 2m }
  - { id: beta, name: Beta ticks, tool: exec, with: { command: node, args: [tick.mjs, beta] }, timeout: 2m }
  - { id: gamma, name: Gamma ticks, tool: exec, with: { command: node, args: [tick.mjs, gamma] }, timeout: 2m }
`;

// Prints "<name> tick N" until a file named "stop" appears.
const ticker = `import { existsSync } from 'node:fs';
let n = 0;
const timer = setInterval(() => {
  console.log(process.argv[2] + ' tick ' + ++n);
  if (existsSync('stop') || n > 1200) clearInterval(timer);
}, 100);
`;

const spinner = '[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]';

describe('rho run --output fancy', () => {
  it('shows concurrent steps running at once, each with its last progress line', { timeout: 120_000 }, async () => {
    const { dir, cleanup } = await makeTempDir('rho-parallel-fancy-');
    cleanups.push(cleanup);
    workspaces.push(dir);
    await writeFiles(dir, { 'flow.yml': workflow, 'tick.mjs': ticker });
    const command = `env -u CI -u GITHUB_ACTIONS node ${cliPath} run flow.yml --output fancy; echo $? > exit-code; sleep 300`;
    await tmux('new-session', '-d', '-s', 'fancy', '-x', '120', '-y', '30', '-c', dir, command);
    socketPath ??= (await tmux('display-message', '-p', '#{socket_path}')).stdout.trim();

    // Each running step shows its latest lines (up to five) under its title, after a count of the earlier ones.
    const lines = (name: string) => `\\s+› (?:… [\\d,]+ earlier lines?\\n\\s+)?${name} tick \\d+\\n(?:\\s+${name} tick \\d+\\n){0,4}`;
    const running = new RegExp(`^${spinner} Alpha ticks\\n${lines('alpha')}${spinner} Beta ticks\\n${lines('beta')}${spinner} Gamma ticks \\(waiting\\)$`, 'm');
    const both = await waitFor(async () => {
      const text = await screen();
      return running.test(text) ? text : undefined;
    }, 'alpha and beta to run together while gamma waits');
    // Both keep going: a later screen shows both tick counts higher.
    const ticks = (text: string, name: string) => Number(new RegExp(`${name} tick (\\d+)`).exec(text)?.[1] ?? -1);
    await waitFor(async () => {
      const text = await screen();
      return running.test(text) && ticks(text, 'alpha') > ticks(both, 'alpha') && ticks(text, 'beta') > ticks(both, 'beta') ? true : undefined;
    }, 'both steps to render new progress');

    await writeFile(path.join(dir, 'stop'), '');
    const code = await waitFor(async () => (existsSync(path.join(dir, 'exit-code')) ? readFile(path.join(dir, 'exit-code'), 'utf8') : undefined), 'the run to end');
    expect(code.trim()).toBe('0');
    const final = await screen();
    // Each title ends with the step's own duration, and its last lines stay under it.
    expect(final).toMatch(
      new RegExp(
        `^✔ Alpha ticks \\[\\d+(\\.\\d)?m?s\\]\\n${lines('alpha')}✔ Beta ticks \\[\\d+(\\.\\d)?m?s\\]\\n${lines('beta')}✔ Gamma ticks \\[\\d+(\\.\\d)?m?s\\]\\n${lines('gamma')}`,
        'm',
      ),
    );
    expect(final).toMatch(/Result: exit 0 \(3 success\)/);
    expect(final).not.toContain('is not a function');
  });
});
