import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/cli.js';

/**
 * Drives the real enquirer prompt inside a running listr2 default renderer, in a pseudo-terminal
 * (tmux), while another task keeps printing: the prompt must be readable, answerable with each
 * choice, and the other task must keep rendering underneath.
 */
const socket = `rho-approver-listr-${process.pid}`;
const fixture = path.join(repoRoot, 'test/fixtures/approver/prompt-under-listr.ts');
let dir: string;
let socketPath: string | undefined;

const tmux = (...args: string[]) => execa('tmux', ['-L', socket, ...args]);
const screen = async (session: string) => (await tmux('capture-pane', '-p', '-t', session)).stdout;

async function waitFor<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 40_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function startSession(session: string, result: string): Promise<void> {
  await tmux('new-session', '-d', '-s', session, '-x', '120', '-y', '40', '-c', repoRoot, `env -u CI -u GITHUB_ACTIONS node --import tsx ${fixture} ${result}; sleep 120`);
  socketPath ??= (await tmux('display-message', '-p', '#{socket_path}')).stdout.trim();
}

const tick = (text: string) => Number(/tick (\d+)/.exec(text)?.[1] ?? -1);

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'rho-approver-listr-'));
});

afterAll(async () => {
  await tmux('kill-server').catch(() => undefined);
  if (socketPath) await rm(socketPath, { force: true });
  await rm(dir, { recursive: true, force: true });
});

describe.concurrent('an approval prompt under the listr2 renderer', () => {
  it.each([
    ['Enter', 'allow_once', ['Enter']],
    ['Down, Enter', 'allow_run', ['Down', 'Enter']],
    ['Down, Down, Enter', 'deny', ['Down', 'Down', 'Enter']],
  ])('%s answers %s while the other step keeps rendering', { timeout: 90_000 }, async (name, answer, typed) => {
    const session = answer;
    const result = path.join(dir, session);
    await startSession(session, result);
    const shown = await waitFor(async () => {
      const text = await screen(session);
      return text.includes('Allow for this run') ? text : undefined;
    }, `the prompt (${name})`);
    expect(shown).toContain('Approval needed (step publish, tool exec): process request');
    expect(shown).toContain('program      /usr/bin/npm (found on PATH as npm)');
    expect(shown).toContain('arguments    publish --tag next');
    expect(shown).toContain('environment  inherits the environment (credentials removed); sets NODE_ENV');
    expect(shown).toMatch(/Allow once\s*\n\s*Allow for this run\s*\n\s*Deny/);
    await waitFor(async () => (tick(await screen(session)) > tick(shown) ? true : undefined), 'the other step to keep rendering');
    for (const key of typed) await tmux('send-keys', '-t', session, key);
    const written = await waitFor(async () => (existsSync(result) ? readFile(result, 'utf8') : undefined), 'the answer');
    expect(written).toMatch(new RegExp(`^${answer} ticks=\\d+$`));
    expect(Number(written.split('=')[1])).toBeGreaterThan(tick(shown));
  });

  it('turns Ctrl-C at the prompt into an interrupt', { timeout: 90_000 }, async () => {
    const session = 'interrupt';
    const result = path.join(dir, session);
    await startSession(session, result);
    await waitFor(async () => ((await screen(session)).includes('Allow for this run') ? true : undefined), 'the prompt');
    await tmux('send-keys', '-t', session, 'C-c');
    const written = await waitFor(async () => (existsSync(result) ? readFile(result, 'utf8') : undefined), 'the outcome');
    expect(written).toBe('error the run was interrupted at the approval prompt (Ctrl-C)');
    expect(existsSync(`${result}.interrupt`)).toBe(true);
  });
});
