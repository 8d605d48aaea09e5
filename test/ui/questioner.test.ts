import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HostError, ToolError } from '../../src/host/errors.js';
import { createHostInput, type HostInputRequest } from '../../src/host/host-input.js';
import { combineAnswers, createQuestioner, loadAnswersFile, parseAnswerFlags, parseAnswersDocument, type QuestionerOptions } from '../../src/ui/questioner/index.js';
import { dataOf, HostHarness } from '../tools/host-harness.js';

const questions = [
  { id: 'color', question: 'Preview color?', type: 'choice', choices: ['red', 'blue'], default: 'red' },
  { id: 'tags', question: 'Tags?', type: 'multi', choices: ['a', 'b', 'c'] },
  { id: 'go', question: 'Go?', type: 'confirm' },
  { id: 'note', question: 'Note?', required: false },
];
const fallback = { answers: { color: 'blue', tags: ['a'], go: false }, reason: 'Reversible preview' };

function request(raw: unknown): HostInputRequest {
  return { ...createHostInput(raw), callId: 'call-1', stepId: 'ask', tool: 'questionnaire' };
}

function unattended(flags: readonly string[], options: Partial<QuestionerOptions> = {}) {
  const lines: string[] = [];
  const secrets: string[] = [];
  const questioner = createQuestioner({
    interactive: false,
    answers: parseAnswerFlags(flags),
    report: (line) => lines.push(line),
    onSecret: (value) => secrets.push(value),
    ...options,
  });
  return { lines, secrets, ask: (raw: unknown) => questioner.ask(request(raw), new AbortController().signal) };
}

async function refusal(work: Promise<unknown>): Promise<ToolError> {
  const error = await work.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

describe('scripted answers', () => {
  it('parses --answer ID=VALUE, keeping "=" in values', () => {
    expect([...parseAnswerFlags(['go=yes', 'query=a=b'])]).toEqual([
      ['go', { value: 'yes', origin: '--answer' }],
      ['query', { value: 'a=b', origin: '--answer' }],
    ]);
  });

  it.each([
    [['novalue'], 'expected ID=VALUE'],
    [['=x'], 'expected ID=VALUE'],
    [['bad id=1'], 'is not a question id'],
    [['go=1', 'go=2'], 'given more than once'],
  ])('refuses %j as a usage error', (flags, message) => {
    expect(() => parseAnswerFlags(flags)).toThrow(HostError);
    expect(() => parseAnswerFlags(flags)).toThrow(message);
  });

  it('reads YAML and JSON answer files with typed values', () => {
    const yaml = parseAnswersDocument('go: true\ncount: 3\ntags: [a, b]\ncolor: blue\n', 'a.yml');
    expect(Object.fromEntries([...yaml].map(([id, answer]) => [id, answer.value]))).toEqual({ go: true, count: '3', tags: ['a', 'b'], color: 'blue' });
    expect(yaml.get('go')?.origin).toBe('--answers a.yml');
    expect(parseAnswersDocument('{"go": false}', 'a.json').get('go')?.value).toBe(false);
  });

  it.each([
    ['- a\n- b\n', 'expected a map'],
    ['go: {nested: 1}\n', 'an answer is a string, a boolean or a list of strings'],
    ['go: [1, {x: 2}]\n', 'an answer is a string, a boolean or a list of strings'],
    ['go: null\n', 'an answer is a string'],
    ['go: [unclosed\n', 'not YAML or JSON'],
  ])('refuses the answers file %j', (text, message) => {
    expect(() => parseAnswersDocument(text, 'bad.yml')).toThrow(message);
  });

  describe('files', () => {
    let dir: string | undefined;
    afterEach(async () => {
      if (dir) await rm(dir, { recursive: true, force: true });
      dir = undefined;
    });

    it('loads --answers FILE and lets --answer flags win over it', async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), 'rho-answers-'));
      await writeFile(path.join(dir, 'answers.yml'), 'color: red\ngo: false\n');
      const combined = combineAnswers(await loadAnswersFile(path.join(dir, 'answers.yml')), parseAnswerFlags(['go=true']));
      expect(combined.get('color')?.value).toBe('red');
      expect(combined.get('go')).toEqual({ value: 'true', origin: '--answer' });
      await expect(loadAnswersFile(path.join(dir, 'missing.yml'))).rejects.toThrow(/cannot be read \(ENOENT\)/);
    });
  });
});

describe('createQuestioner without a person', () => {
  it('converts flag text to each question type, tags the answers as user and echoes who answered', async () => {
    const { ask, lines } = unattended(['color=blue', 'tags=a, c', 'go=yes', 'note=hello']);
    const response = await ask({ questions });
    expect(response).toEqual({ answers: { color: 'blue', tags: ['a', 'c'], go: true, note: 'hello' }, source: 'user' });
    expect(lines).toEqual([
      'step ask: answered color=blue (--answer)',
      'step ask: answered tags=a,c (--answer)',
      'step ask: answered go=true (--answer)',
      'step ask: answered note=hello (--answer)',
    ]);
  });

  it('leaves unanswered optional questions out', async () => {
    const { ask } = unattended(['color=red', 'tags=b', 'go=no']);
    expect((await ask({ questions })).answers).toEqual({ color: 'red', tags: ['b'], go: false });
  });

  it.each([
    [['color=Blue', 'tags=a', 'go=yes'], 'question "color" (Preview color?): --answer: "Blue" is not one of "red", "blue"'],
    [['color=red', 'tags=a,a', 'go=yes'], '"a" selected more than once'],
    [['color=red', 'tags=a', 'go=maybe'], 'a confirm answer is true or false'],
    [['color=red', 'tags=d', 'go=yes'], '"d" not offered'],
  ])('refuses invalid scripted answers %j with the same rules, naming the question and the flag', async (flags, message) => {
    const error = await refusal(unattended(flags).ask({ questions }));
    expect(error.kind).toBe('invalid_arguments');
    expect(error.message).toContain('step ask: ');
    expect(error.message).toContain(message);
  });

  it('fails at once when a required question has no answer and there is no fallback, naming the question and the flag', async () => {
    // No timer is involved: nothing waits for an answer that cannot come.
    const error = await refusal(unattended(['color=red']).ask({ questions }));
    expect(error.kind).toBe('unsupported');
    expect(error.message).toBe('step ask: question "tags" (Tags?) has no answer and nobody can be asked here; run again with --answer ask.tags=VALUE (or --answers FILE)');
  });

  it('mentions --question-timeout when the questionnaire has a fallback but timeouts are off', async () => {
    const error = await refusal(unattended([]).ask({ questions, on_timeout: fallback }));
    expect(error.message).toContain('or with --question-timeout SECONDS to apply its on_timeout answers');
  });

  it('applies the fallback, tagged timeout_fallback, when --question-timeout is set and nobody answered', async () => {
    const { ask, lines } = unattended([], { timeoutSeconds: 5 });
    expect(await ask({ questions, on_timeout: fallback })).toEqual({ answers: fallback.answers, source: 'timeout_fallback' });
    expect(lines).toEqual(['step ask: nobody can answer here; applied the on_timeout answers (Reversible preview)']);
  });

  it('never mixes a fallback with answers someone gave', async () => {
    const error = await refusal(unattended(['color=red'], { timeoutSeconds: 5 }).ask({ questions, on_timeout: fallback }));
    expect(error.message).toContain('question "tags"');
    const { ask } = unattended(['color=red', 'tags=b', 'go=yes'], { timeoutSeconds: 5 });
    expect(await ask({ questions, on_timeout: fallback })).toEqual({ answers: { color: 'red', tags: ['b'], go: true }, source: 'user' });
  });

  it('masks secret answers in its echo, hands them to onSecret, and refuses ones too short to mask', async () => {
    const secretQuestions = [{ id: 'token', question: 'Token?', secret: true }];
    const { ask, lines, secrets } = unattended(['token=sk-live-123456']);
    expect((await ask({ questions: secretQuestions })).answers).toEqual({ token: 'sk-live-123456' });
    expect(lines).toEqual(['step ask: answered token=*** (--answer)']);
    expect(secrets).toEqual(['sk-live-123456']);
    const error = await refusal(unattended(['token=abc']).ask({ questions: secretQuestions }));
    expect(error.message).toContain('at least 4 characters');
    expect(error.message).not.toContain('abc"');
  });
});

describe('questionnaire step with the scripted questioner', () => {
  let harness: HostHarness | undefined;
  afterEach(async () => {
    await harness?.dispose();
    harness = undefined;
  });

  it('answers through the host and reports the source in the data', async () => {
    const questioner = createQuestioner({ interactive: false, answers: parseAnswerFlags([]), timeoutSeconds: 1 });
    harness = await HostHarness.create({ questioner });
    const result = await harness.invoke('questionnaire', { questions, on_timeout: fallback }, { stepId: 'ask' });
    expect(dataOf(result)).toEqual({ answers: fallback.answers, source: 'timeout_fallback' });
    expect(harness.events.find((event) => event.type === 'question_answered')).toMatchObject({ source: 'timeout_fallback' });
  });
});
