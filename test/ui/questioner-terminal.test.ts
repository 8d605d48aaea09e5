import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../support/cli.js';

/**
 * Drives the enquirer questioner in a real pseudo-terminal: tmux runs a small script that asks
 * a questionnaire, the test types with `send-keys` and reads the screen with `capture-pane`.
 */
const socket = `rho-questioner-${process.pid}`;
const fixture = path.join(repoRoot, 'test/fixtures/questioner/ask-in-terminal.ts');
const countdownText = 'applies the fallback';
let dir: string;
let sessions = 0;

function tmux(...args: string[]): string {
  return execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'rho-questioner-'));
});

afterAll(async () => {
  let socketPath: string | undefined;
  try {
    socketPath = tmux('display-message', '-p', '#{socket_path}').trim();
    tmux('kill-server');
  } catch {
    // Every session already ended, so the server is gone.
  }
  // tmux leaves its socket file behind when the server exits.
  await rm(socketPath ?? path.join(os.tmpdir(), `tmux-${process.getuid?.() ?? 0}`, socket), { force: true });
  await rm(dir, { recursive: true, force: true });
});

interface Session {
  screen(): string;
  type(text: string): void;
  press(...keys: string[]): void;
  result(): Promise<unknown>;
  resultFile: string;
}

async function waitFor<T>(check: () => T | undefined | false, what: string, withinMs = 15_000): Promise<T> {
  const until = Date.now() + withinMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

async function ask(questionnaire: unknown, timeout: number | 'off'): Promise<Session> {
  const name = `s${++sessions}`;
  const questionFile = path.join(dir, `${name}.json`);
  const resultFile = path.join(dir, `${name}.result.json`);
  await writeFile(questionFile, JSON.stringify(questionnaire));
  const command = [process.execPath, '--import', 'tsx', fixture, questionFile, String(timeout), resultFile].map((part) => `'${part}'`).join(' ');
  // remain-on-exit keeps the screen readable after the script has written its result and ended.
  tmux('new-session', '-d', '-s', name, '-x', '120', '-y', '20', '-c', repoRoot, command, ';', 'set-option', '-t', name, 'remain-on-exit', 'on');
  const session: Session = {
    resultFile,
    screen: () => tmux('capture-pane', '-p', '-t', name),
    type: (text) => tmux('send-keys', '-t', name, '-l', text),
    press: (...keys) => tmux('send-keys', '-t', name, ...keys),
    // The file can exist before the script has finished writing it.
    result: async () => {
      await waitFor(() => existsSync(resultFile) && resultFile, 'the result');
      for (let tries = 0; ; tries++) {
        try {
          return JSON.parse(await readFile(resultFile, 'utf8'));
        } catch (error) {
          if (tries > 100) throw error;
          await sleep(50);
        }
      }
    },
  };
  return session;
}

const nameQuestionnaire = {
  questions: [{ id: 'name', question: 'Name?' }],
  on_timeout: { answers: { name: 'fallback-name' }, reason: 'a safe default' },
};

const choiceAndSecret = {
  questions: [
    { id: 'color', question: 'Preview color?', type: 'choice', choices: ['red', 'blue'], default: 'red' },
    { id: 'token', question: 'Token?', secret: true },
  ],
};

const multiSelect = {
  questions: [{ id: 'checks', question: 'Which checks?', type: 'multi', choices: ['lint', 'test', 'deploy'], default: ['test'] }],
};

/** Started together, so the scripts' start-up time overlaps. */
let started: { typing: Session; expiry: Session; choices: Session; interrupt: Session; multi: Session };
beforeAll(async () => {
  started = {
    typing: await ask(nameQuestionnaire, 3),
    expiry: await ask(nameQuestionnaire, 1),
    choices: await ask(choiceAndSecret, 1),
    interrupt: await ask(nameQuestionnaire, 'off'),
    multi: await ask(multiSelect, 'off'),
  };
});

describe('enquirer questioner in a terminal', () => {
  it('stops the countdown for good once the person types, and never submits for them (3 s timeout, typing at 0.5 s)', async () => {
    const session = started.typing;
    await waitFor(() => session.screen().includes(countdownText) && session.screen().includes('Name?'), 'the prompt with its countdown');
    await sleep(500);
    session.type('x');
    await waitFor(() => !session.screen().includes(countdownText), 'the countdown line to disappear', 2000);
    await sleep(3000);
    expect(existsSync(session.resultFile)).toBe(false);
    expect(session.screen()).not.toContain(countdownText);
    expect(session.screen()).toContain('Name? ‣ x');
    session.type('yz');
    session.press('Enter');
    expect(await session.result()).toEqual({ answers: { name: 'xyz' }, source: 'user' });
  });

  it('applies the fallback when the countdown expires untouched', async () => {
    expect(await started.expiry.result()).toEqual({ answers: { name: 'fallback-name' }, source: 'timeout_fallback' });
  });

  it('selects choices with the keyboard, masks secrets on screen, and keeps waiting without a fallback', async () => {
    const session = started.choices;
    const shownAt = await waitFor(() => session.screen().includes('Preview color?') && Date.now(), 'the choice prompt');
    await sleep(Math.max(0, shownAt + 1500 - Date.now()));
    expect(session.screen()).not.toContain(countdownText);
    expect(existsSync(session.resultFile)).toBe(false);
    session.press('Down');
    session.press('Enter');
    await waitFor(() => session.screen().includes('Token?'), 'the secret prompt');
    session.type('sk-abcdef');
    await waitFor(() => session.screen().includes('*********'), 'the masked secret');
    expect(session.screen()).not.toContain('sk-abcdef');
    session.press('Enter');
    expect(await session.result()).toEqual({ answers: { color: 'blue', token: 'sk-abcdef' }, source: 'user' });
    expect(session.screen()).not.toContain('sk-abcdef');
  });

  it('shows which choices of a multi-select are selected in text, not only in colour', async () => {
    const session = started.multi;
    await waitFor(() => session.screen().includes('Which checks?'), 'the multi-select prompt');
    const boxes = (screen: string) => screen.split('\n').flatMap((line) => /(\[[x ]\]) (lint|test|deploy)/.exec(line)?.slice(1, 3).join(' ') ?? []);
    expect(boxes(session.screen())).toEqual(['[ ] lint', '[x] test', '[ ] deploy']);
    session.press('Space');
    await waitFor(() => boxes(session.screen())[0] === '[x] lint' || undefined, 'lint to be selected');
    expect(boxes(session.screen())).toEqual(['[x] lint', '[x] test', '[ ] deploy']);
    session.press('Enter');
    expect(await session.result()).toEqual({ answers: { checks: ['lint', 'test'] }, source: 'user' });
  });

  it('interrupts the run on Ctrl-C instead of answering', async () => {
    const session = started.interrupt;
    await waitFor(() => session.screen().includes('Name?'), 'the prompt');
    expect(session.screen()).not.toContain(countdownText);
    session.press('C-c');
    expect(await session.result()).toEqual({ error: 'the run was interrupted at a question of step ask (Ctrl-C)', interrupted: true });
  });
});
