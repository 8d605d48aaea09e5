import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/host/events.js';
import { launchWorkflow } from '../../src/workflow/launch.js';
import { parseRunChoices } from '../../src/workflow/run-choices.js';
import { createQuestioner, parseAnswerFlags } from '../../src/ui/questioner/index.js';
import { makeTempDir, repoRoot, runCli } from '../support/cli.js';
import { startServer, type TestServer } from '../tools/network/servers.js';

/** workflows/ask-and-fetch.yml against a greeting server on 127.0.0.1, unattended. */
const workflow = path.join(repoRoot, 'workflows/ask-and-fetch.yml');
let server: TestServer;
let dir: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  server = await startServer((request, response) => response.end(`${request.url.split('/').pop()} from the server\n`));
  ({ dir, cleanup } = await makeTempDir());
});
afterEach(async () => {
  await server.close();
  await cleanup();
});

async function launch(answers: readonly string[], timeoutSeconds?: number) {
  const events: RunEvent[] = [];
  const summary = await launchWorkflow({
    file: workflow,
    cwd: dir,
    choices: parseRunChoices({ workspace: dir, inputs: [`url=${server.origin}`], rules: { allow: [`network(${server.host})`] } }),
    ports: {
      hostEnv: {},
      questioner: createQuestioner({ interactive: false, answers: parseAnswerFlags(answers), ...(timeoutSeconds !== undefined && { timeoutSeconds }) }),
    },
    signal: new AbortController().signal,
    emit: (event) => events.push(event),
  });
  return { summary, events };
}

describe('workflows/ask-and-fetch.yml', () => {
  it('runs unattended with --answer: the answer picks the URL', async () => {
    const { summary } = await launch(['greeting=hi']);
    expect(summary.exitCode).toBe(0);
    expect(summary.steps.find((step) => step.id === 'report')?.data).toBe('hi from the server (status 200, answered by user)');
    expect(server.requests.map((request) => request.url)).toEqual(['/greetings/hi']);
  });

  it('runs unattended with --question-timeout and reports source timeout_fallback', async () => {
    const { summary, events } = await launch([], 5);
    expect(summary.exitCode).toBe(0);
    expect(summary.steps.find((step) => step.id === 'ask')?.data).toEqual({ answers: { greeting: 'hello' }, source: 'timeout_fallback' });
    expect(events).toContainEqual({ type: 'question_answered', stepId: 'ask', source: 'timeout_fallback' });
    expect(server.requests.map((request) => request.url)).toEqual(['/greetings/hello']);
  });

  it('fails the question step at once without an answer or a timeout, and calls nothing', async () => {
    const { summary } = await launch([]);
    expect(summary.exitCode).toBe(1);
    expect(summary.steps.find((step) => step.id === 'ask')?.error?.message).toContain('--answer ask.greeting=VALUE');
    expect(server.requests).toHaveLength(0);
  });

  it('runs from the built CLI with --answer and with --question-timeout', async () => {
    const common = ['run', workflow, '-w', dir, '-i', `url=${server.origin}`, '--allow', `network(${server.host})`, '--output', 'json'];
    const answered = await runCli([...common, '--answer', 'greeting=howdy'], { cwd: dir });
    expect(answered.exitCode).toBe(0);
    const fellBack = await runCli([...common, '--question-timeout', '5'], { cwd: dir });
    expect(fellBack.exitCode).toBe(0);
    expect(fellBack.stdout).toContain('"source":"timeout_fallback"');
    expect(server.requests.map((request) => request.url)).toEqual(['/greetings/howdy', '/greetings/hello']);
  });
});
