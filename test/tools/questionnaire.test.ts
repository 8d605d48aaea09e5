import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { timeoutFallbackResponse, userResponse, type Questioner } from '../../src/host/host-input.js';
import { questionnaireTool } from '../../src/tools/questionnaire.js';
import { dataOf, HostHarness } from './host-harness.js';

const confirmArgs = {
  questions: [
    { id: 'color', question: 'Preview color?', type: 'choice', choices: ['red', 'blue'], default: 'red' },
    { id: 'token', question: 'Token?', secret: true, required: false },
  ],
  on_timeout: { answers: { color: 'blue' }, reason: 'Use blue for the reversible local preview' },
};

let harness: HostHarness | undefined;
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
});

function questioner(answer: Questioner['ask']): Questioner & { ask: ReturnType<typeof vi.fn> } {
  return { ask: vi.fn(answer) };
}

describe('questionnaire tool', () => {
  it('fails a bad questionnaire while preparing, before anything is asked', async () => {
    const asker = questioner(async () => ({ answers: {}, source: 'user' }));
    harness = await HostHarness.create({ questioner: asker });
    const result = await harness.invoke('questionnaire', { ...confirmArgs, on_timeout: { answers: { color: 'green' }, reason: 'x' } });
    expect(result.status).toBe('failure');
    expect(result.error?.kind).toBe('invalid_arguments');
    expect(result.error?.message).toContain('on_timeout.answers.color');
    expect(asker.ask).not.toHaveBeenCalled();
    expect(harness.events.some((event) => event.type === 'question_asked')).toBe(false);
  });

  it('returns {answers, source: user}, masks secret answers in its text and reports the question events', async () => {
    harness = await HostHarness.create({ questioner: questioner(async (request) => userResponse(request, { color: 'red', token: 'sk-12345678' })) });
    const result = await harness.invoke('questionnaire', confirmArgs, { stepId: 'ask' });
    expect(dataOf(result)).toEqual({ answers: { color: 'red', token: 'sk-12345678' }, source: 'user' });
    expect(result.output?.text).toBe('color: red\ntoken: ***');
    expect(JSON.stringify(result.output?.metadata)).not.toContain('sk-12345678');
    const questionEvents = harness.events.filter((event) => event.type.startsWith('question_'));
    expect(questionEvents).toEqual([
      { type: 'question_asked', stepId: 'ask', questionIds: ['color', 'token'] },
      { type: 'question_answered', stepId: 'ask', source: 'user' },
    ]);
  });

  it('passes the validated questions and the fallback to the questioner and reports a fallback as timeout_fallback', async () => {
    const asker = questioner(async (request) => timeoutFallbackResponse(request));
    harness = await HostHarness.create({ questioner: asker });
    const result = await harness.invoke('questionnaire', confirmArgs);
    expect(dataOf(result)).toEqual({ answers: { color: 'blue' }, source: 'timeout_fallback' });
    expect(result.output?.text).toContain('Use blue for the reversible local preview');
    const request = asker.ask.mock.calls[0]![0];
    expect(request.questions.map((question: { id: string }) => question.id)).toEqual(['color', 'token']);
    expect(request.timeoutFallback.reason).toBe('Use blue for the reversible local preview');
  });

  it('fails the call when a questioner invents or edits a fallback', async () => {
    harness = await HostHarness.create({ questioner: questioner(async () => ({ answers: { color: 'red' }, source: 'timeout_fallback' })) });
    const result = await harness.invoke('questionnaire', confirmArgs);
    expect(result.status).toBe('failure');
    expect(result.error?.message).toMatch(/exactly the questionnaire's on_timeout answers/);
  });

  it('does not count time spent waiting for an answer against the call timeout', async () => {
    harness = await HostHarness.create({
      questioner: questioner(async (request) => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        return userResponse(request, { color: 'blue' });
      }),
    });
    const result = await harness.invoke('questionnaire', confirmArgs, { timeoutMs: 100 });
    expect(dataOf(result)).toEqual({ answers: { color: 'blue' }, source: 'user' });
  });

  it('is a sync tool (never detached) whose schema documents on_timeout and secret', () => {
    expect(questionnaireTool.mode).toBe('sync');
    const schema = JSON.stringify(z.toJSONSchema(questionnaireTool.schema));
    expect(schema).toContain('on_timeout');
    expect(schema).toContain('secret');
  });
});
