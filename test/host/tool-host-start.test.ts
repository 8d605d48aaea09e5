import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { userResponse } from '../../src/host/host-input.js';
import { Policy } from '../../src/host/policy.js';
import { ToolRegistry } from '../../src/host/registry.js';
import { defineTool } from '../../src/host/tool.js';
import { ToolHost } from '../../src/host/tool-host.js';
import type { ToolHostRunEvent } from '../../src/host/tool-host-run.js';
import { Workspace } from '../../src/host/workspace.js';
import { questionnaireTool } from '../../src/tools/questionnaire.js';

const waitForAbort = defineTool({
  name: 'wait',
  description: 'waits until cancelled',
  schema: z.strictObject({}),
  async run(_args, ctx) {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    return { text: 'stopped' };
  },
});

let dir: string;
let host: ToolHost;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'rho-start-'));
  host = new ToolHost({
    workspace: await Workspace.create(dir),
    policy: new Policy(),
    tools: new ToolRegistry([questionnaireTool, waitForAbort]),
    environment: { env: {}, secretNames: [], processEnv: { mode: 'empty' } },
  });
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('ToolHost.start', () => {
  it('streams the call’s events and takes answers through respond()', async () => {
    const run = host.start({
      id: 'ask-1',
      tool: 'questionnaire',
      args: { questions: [{ id: 'color', question: 'Color?', type: 'choice', choices: ['red', 'blue'] }] },
    });
    const seen: ToolHostRunEvent['type'][] = [];
    for await (const event of run.events()) {
      seen.push(event.type);
      if (event.type === 'input_requested') {
        expect(event.request.questions.map((q) => q.id)).toEqual(['color']);
        run.respond(event.requestId, userResponse(event.request, { color: 'blue' }));
      }
    }
    const result = await run.result;
    expect(result.status).toBe('success');
    expect(result.output?.data).toEqual({ answers: { color: 'blue' }, source: 'user' });
    expect(seen).toEqual(['step_started', 'question_asked', 'input_requested', 'question_answered', 'call_finished']);
  });

  it('cancel() ends a running call with a typed cancelled result', async () => {
    const run = host.start({ id: 'w-1', tool: 'wait', args: {} });
    for await (const event of run.events()) if (event.type === 'step_started') run.cancel();
    const result = await run.result;
    expect(result.status).toBe('cancelled');
    expect(result.error?.kind).toBe('cancelled');
  });

  it('leaving the event loop early, or disposing of the run, cancels it', async () => {
    const run = host.start({ id: 'w-2', tool: 'wait', args: {} });
    for await (const event of run.events()) if (event.type === 'step_started') break;
    expect((await run.result).status).toBe('cancelled');

    const disposed = host.start({ id: 'w-3', tool: 'wait', args: {} });
    await disposed[Symbol.asyncDispose]();
    expect((await disposed.result).status).toBe('cancelled');
  });

  it('refuses an answer to a question nobody asked', () => {
    const run = host.start({ id: 'w-4', tool: 'wait', args: {} });
    expect(() => run.respond('q9', { answers: {}, source: 'user' })).toThrow(/no question q9/);
    run.cancel();
    return run.result;
  });
});
