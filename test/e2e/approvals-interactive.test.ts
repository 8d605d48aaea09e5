import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cliPath, makeTempDir, writeFiles } from '../support/cli.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A person at a terminal: the built CLI runs in a pseudo-terminal (tmux) with the fancy
 * renderer, a parallel step keeps printing, and the test answers the real enquirer prompt.
 */
const socket = `rho-approvals-e2e-${process.pid}`;
const cleanups: (() => Promise<void>)[] = [];
let socketPath: string | undefined;

const tmux = (...args: string[]) => execa('tmux', ['-L', socket, ...args]);
const screen = async (session: string) => (await tmux('capture-pane', '-p', '-t', session)).stdout;
const tick = (text: string) => Number(/tick (\d+)/.exec(text)?.[1] ?? -1);

afterAll(async () => {
  await tmux('kill-server').catch(() => undefined);
  if (socketPath) await rm(socketPath, { force: true });
  for (const cleanup of cleanups) await cleanup();
});

const workflow = `version: 1
name: interactive approvals
max_parallel: 2
policy:
  allow: ["process(node tick.mjs)"]
  ask: ["process(node greet.mjs)"]
steps:
  - id: ticker
    tool: exec
    with: { command: node, args: [tick.mjs] }
    timeout: 2m
  - id: greet
    tool: exec
    with: { command: node, args: [greet.mjs, world] }
  - id: greet_again
    needs: [greet]
    tool: exec
    with: { command: node, args: [greet.mjs, world] }
`;

/** Starts `rho run` in its own tmux session and workspace; returns where to look. */
async function startRun(session: string) {
  const { dir, cleanup } = await makeTempDir(`rho-approvals-${session}-`);
  cleanups.push(cleanup);
  await writeFiles(dir, {
    'flow.yml': workflow,
    'greet.mjs': `console.log('hello ' + process.argv[2]);\n`,
    'tick.mjs': `import { existsSync } from 'node:fs';\nlet n = 0;\nconst timer = setInterval(() => {\n  console.log('tick ' + ++n);\n  if (existsSync('stop') || n > 600) clearInterval(timer);\n}, 150);\n`,
  });
  const command = `env -u CI -u GITHUB_ACTIONS node ${cliPath} run flow.yml --events events.ndjson; echo $? > exit-code; sleep 300`;
  await tmux('new-session', '-d', '-s', session, '-x', '150', '-y', '45', '-c', dir, command);
  socketPath ??= (await tmux('display-message', '-p', '#{socket_path}')).stdout.trim();
  return {
    dir,
    /** Waits for the n-th prompt (counted by the approval_requested events), about `stepId`, to be on screen. */
    prompt: async (nth: number, stepId: string) => {
      await waitFor(async () => ((await approvalEvents(dir)).filter((event) => event.type === 'approval_requested').length >= nth ? true : undefined), `prompt ${nth}`);
      return waitFor(async () => {
        const text = await screen(session);
        return text.includes(`Approval needed (step ${stepId},`) && text.includes('Allow for this run') ? text : undefined;
      }, `prompt ${nth} on screen`);
    },
    keys: async (...keys: string[]) => {
      for (const key of keys) await tmux('send-keys', '-t', session, key);
    },
    /** Ends the parallel step (exec steps may wait for it before they start). */
    stopTicker: () => writeFile(path.join(dir, 'stop'), ''),
    finish: async () => {
      await writeFile(path.join(dir, 'stop'), '');
      const code = await waitFor(async () => (existsSync(path.join(dir, 'exit-code')) ? readFile(path.join(dir, 'exit-code'), 'utf8') : undefined), 'the run to end');
      return { exitCode: Number(code.trim()), decisions: (await approvalEvents(dir)).filter((event) => event.type === 'approval_decided' && event.stepId !== 'ticker') };
    },
  };
}

async function approvalEvents(dir: string): Promise<Record<string, unknown>[]> {
  const file = path.join(dir, 'events.ndjson');
  if (!existsSync(file)) return [];
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter((line) => line.startsWith('{') && line.endsWith('}'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((event) => String(event.type).startsWith('approval_'));
}

const decided = (events: Record<string, unknown>[]) => events.map((event) => `${event.stepId}:${event.result}/${event.decider}`);

describe.concurrent('rho run at a terminal', () => {
  it('Allow once answers one request; the same request later is asked again', { timeout: 120_000 }, async () => {
    const run = await startRun('once');
    const shown = await run.prompt(1, 'greet');
    expect(shown).toContain('Approval needed (step greet, tool exec): process request');
    expect(shown).toMatch(/program\s+\S+node \(found on PATH as node\)/);
    expect(shown).toContain('arguments    greet.mjs world');
    expect(shown).toContain('runs         directly, no shell');
    expect(shown).toMatch(/Allow once\s*\n\s*Allow for this run\s*\n\s*Deny/);
    await waitFor(async () => (tick(await screen('once')) > tick(shown) ? true : undefined), 'the parallel step to keep rendering under the prompt');
    await run.keys('Enter');
    await run.stopTicker();
    await run.prompt(2, 'greet_again');
    await run.keys('Enter');
    const { exitCode, decisions } = await run.finish();
    expect(exitCode).toBe(0);
    expect(decided(decisions)).toEqual(['greet:allow/user', 'greet_again:allow/user']);
    // The prompts are gone; what was decided, and what the steps printed, stays on screen.
    const final = await screen('once');
    expect(final).toMatch(/✔ greet \[\d+(\.\d)?m?s\]\n\s+› ✔ allowed by user: process request #\d+\n\s+hello world\n/);
    expect(final).toMatch(/✔ greet_again \[\d+(\.\d)?m?s\]\n\s+› ✔ allowed by user: process request #\d+\n\s+hello world\n/);
  });

  it('Allow for this run answers the identical later request without asking', { timeout: 120_000 }, async () => {
    const run = await startRun('run');
    await run.prompt(1, 'greet');
    await run.keys('Down', 'Enter');
    const { exitCode, decisions } = await run.finish();
    expect(exitCode).toBe(0);
    expect(decided(decisions)).toEqual(['greet:allow/user', 'greet_again:allow/remembered']);
    expect(await screen('run')).toMatch(/✔ greet_again \[\d+(\.\d)?m?s\]\n\s+› ✔ allowed by remembered: process request #\d+/);
  });

  it('Deny fails the step as denied: exit 3', { timeout: 120_000 }, async () => {
    const run = await startRun('deny');
    await run.prompt(1, 'greet');
    await run.keys('Down', 'Down', 'Enter');
    const { exitCode, decisions } = await run.finish();
    expect(exitCode).toBe(3);
    expect(decided(decisions)).toEqual(['greet:deny/user']);
    // Under the step: the denial's message, then the decision.
    expect(await screen('deny')).toMatch(/✖ greet \[\d+(\.\d)?m?s\]\n\s+› ⛔ denied [^›]*\n\s+› ✖ denied by user: process request #\d+/);
  });

  it('Ctrl-C at the prompt interrupts the run: exit 130', { timeout: 120_000 }, async () => {
    const run = await startRun('interrupt');
    await run.prompt(1, 'greet');
    await run.keys('C-c');
    const { exitCode, decisions } = await run.finish();
    expect(exitCode).toBe(130);
    expect(decisions).toEqual([]);
  });
});
