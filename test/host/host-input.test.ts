import { describe, expect, it } from 'vitest';
import { ToolError } from '../../src/host/errors.js';
import {
  createHostInput,
  isHostInput,
  questionnaireSchema,
  secretAnswerValues,
  timeoutFallbackResponse,
  userResponse,
  validateHostInputResponse,
} from '../../src/host/host-input.js';

const color = { id: 'color', question: 'Preview color?', type: 'choice', choices: ['red', 'blue'], default: 'red' };
const tags = { id: 'tags', question: 'Tags?', type: 'multi', choices: ['a', 'b', 'c'] };
const go = { id: 'go', question: 'Go?', type: 'confirm' };
const note = { id: 'note', question: 'Note?', type: 'text', required: false };

function problemOf(raw: unknown): string {
  try {
    createHostInput(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).kind).toBe('invalid_arguments');
    return (error as ToolError).message;
  }
  throw new Error('expected the questionnaire to be refused');
}

describe('createHostInput: questions', () => {
  it('fills defaults, assigns ids to unnamed questions and marks the result as checked', () => {
    const input = createHostInput({ questions: [{ question: 'Name?' }, { question: 'Sure?', type: 'confirm' }] });
    expect(input.questions.map((q) => [q.id, q.type, q.required, q.secret])).toEqual([
      ['q1', 'text', true, false],
      ['q2', 'confirm', true, false],
    ]);
    expect(isHostInput(input)).toBe(true);
    expect(isHostInput({ questions: input.questions })).toBe(false);
    expect(Object.isFrozen(input)).toBe(true);
    expect(isHostInput({ ...input, callId: 'c' })).toBe(true);
  });

  it.each([
    [{ questions: [] }, 'questions'],
    [{ questions: [{ question: '' }] }, 'questions.0.question'],
    [{ questions: [{ question: 'x', extra: 1 }] }, 'unknown field'],
    [{ questions: [{ id: 'bad id', question: 'x' }] }, 'questions.0.id'],
    [{ questions: [{ question: 'x', type: 'number' }] }, 'questions.0.type'],
    [{ questions: [{ question: 'x', type: 'choice' }] }, 'a choice question needs choices'],
    [{ questions: [{ question: 'x', type: 'multi' }] }, 'a multi question needs choices'],
    [{ questions: [{ question: 'x', type: 'text', choices: ['a'] }] }, 'a text question offers no choices'],
    [{ questions: [{ question: 'x', type: 'choice', choices: ['a', 'a'] }] }, '"a" offered more than once'],
    [{ questions: [{ question: 'x', type: 'choice', choices: ['a'], default: 'b' }] }, '"b" is not one of "a"'],
    [{ questions: [{ question: 'x', type: 'confirm', default: 'yes' }] }, 'a confirm answer is true or false'],
    [{ questions: [{ question: 'x', type: 'multi', choices: ['a'], default: 'a' }] }, 'a multi answer is a list of strings'],
    [{ questions: [{ question: 'x', type: 'confirm', secret: true }] }, 'only text questions can be secret'],
    [{ questions: [{ question: 'x', secret: true, default: 'hunter22' }] }, 'a secret question cannot have a default'],
    [
      {
        questions: [
          { id: 'a', question: 'x' },
          { id: 'a', question: 'y' },
        ],
      },
      'the id "a" is used twice',
    ],
    [{ questions: [{ id: 'q2', question: 'x' }, { question: 'y' }] }, 'the id "q2" is used twice'],
  ])('refuses %j', (raw, message) => {
    expect(problemOf(raw)).toContain(message);
  });
});

describe('createHostInput: on_timeout', () => {
  const valid = { questions: [color, tags, go, note], on_timeout: { answers: { color: 'blue', tags: ['a'], go: false }, reason: 'Reversible preview' } };

  it('accepts a complete, valid fallback; optional questions may be left out', () => {
    const input = createHostInput(valid);
    expect(input.timeoutFallback).toEqual({ answers: { color: 'blue', tags: ['a'], go: false }, reason: 'Reversible preview' });
    expect(Object.isFrozen(input.timeoutFallback?.answers)).toBe(true);
  });

  it.each([
    ['an empty reason', { ...valid, on_timeout: { ...valid.on_timeout, reason: '  ' } }, 'on_timeout.reason'],
    ['an unknown id', { ...valid, on_timeout: { ...valid.on_timeout, answers: { ...valid.on_timeout.answers, colour: 'red' } } }, 'no question has the id "colour"'],
    ['a choice not offered', { ...valid, on_timeout: { ...valid.on_timeout, answers: { ...valid.on_timeout.answers, color: 'Blue' } } }, '"Blue" is not one of "red", "blue"'],
    ['a string for multi', { ...valid, on_timeout: { ...valid.on_timeout, answers: { ...valid.on_timeout.answers, tags: 'a' } } }, 'a multi answer is a list of strings'],
    ['a duplicate selection', { ...valid, on_timeout: { ...valid.on_timeout, answers: { ...valid.on_timeout.answers, tags: ['a', 'a'] } } }, '"a" selected more than once'],
    ['a string for confirm', { ...valid, on_timeout: { ...valid.on_timeout, answers: { ...valid.on_timeout.answers, go: 'false' } } }, 'a confirm answer is true or false'],
    ['a missing required answer', { ...valid, on_timeout: { ...valid.on_timeout, answers: { color: 'blue', tags: ['a'] } } }, 'question "go" is required but has no answer'],
    ['an empty required multi', { ...valid, on_timeout: { ...valid.on_timeout, answers: { ...valid.on_timeout.answers, tags: [] } } }, 'at least one selection is required'],
    ['an implicit id', { questions: [{ question: 'Name?' }], on_timeout: { answers: { q1: 'x' }, reason: 'r' } }, 'an explicit id is required when on_timeout is given'],
    ['an unknown field', { ...valid, on_timeout: { ...valid.on_timeout, seconds: 5 } }, 'unknown field'],
  ])('refuses %s', (_name, raw, message) => {
    expect(problemOf(raw)).toContain(message);
  });

  it('names the failing field of the fallback, so a workflow author can find it', () => {
    const message = problemOf({ ...valid, on_timeout: { ...valid.on_timeout, answers: { ...valid.on_timeout.answers, color: 'green' } } });
    expect(message).toContain('on_timeout.answers.color');
  });

  it('applies the same rules in the zod schema that tools and `rho validate` use', () => {
    const parsed = questionnaireSchema().safeParse({ questions: [color], on_timeout: { answers: { color: 'green' }, reason: 'r' } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['on_timeout', 'answers', 'color']);
  });
});

describe('responses and fallback provenance', () => {
  const input = createHostInput({
    questions: [color, tags, note],
    on_timeout: { answers: { color: 'blue', tags: ['a', 'b'] }, reason: 'Safe default' },
  });

  it('tags normal answers as user and returns the fallback tagged timeout_fallback', () => {
    expect(userResponse(input, { color: 'red', tags: ['c'] })).toEqual({ answers: { color: 'red', tags: ['c'] }, source: 'user' });
    expect(timeoutFallbackResponse(input)).toEqual({ answers: { color: 'blue', tags: ['a', 'b'] }, source: 'timeout_fallback' });
  });

  it('accepts a timeout_fallback response that is exactly the fallback', () => {
    const response = validateHostInputResponse(input, { answers: { tags: ['a', 'b'], color: 'blue' }, source: 'timeout_fallback' });
    expect(response.source).toBe('timeout_fallback');
  });

  it.each([
    ['a changed value', { color: 'red', tags: ['a', 'b'] }],
    ['a reordered selection', { color: 'blue', tags: ['b', 'a'] }],
    ['an added optional answer', { color: 'blue', tags: ['a', 'b'], note: 'hi' }],
    ['a removed answer', { color: 'blue' }],
  ])('rejects a timeout_fallback response with %s', (_name, answers) => {
    expect(() => validateHostInputResponse(input, { answers, source: 'timeout_fallback' })).toThrow(/exactly the questionnaire's on_timeout answers/);
  });

  it('rejects a timeout_fallback response invented for a questionnaire without on_timeout', () => {
    const plain = createHostInput({ questions: [color] });
    expect(() => timeoutFallbackResponse(plain)).toThrow(/no on_timeout/);
    expect(() => validateHostInputResponse(plain, { answers: { color: 'red' }, source: 'timeout_fallback' })).toThrow(/has no on_timeout/);
  });

  it('checks user answers with the same rules: unknown ids, wrong types, missing required answers', () => {
    expect(() => userResponse(input, { color: 'red', tags: ['a'], extra: 'x' })).toThrow(/no question has the id "extra"/);
    expect(() => userResponse(input, { color: 'green', tags: ['a'] })).toThrow(/"green" is not one of/);
    expect(() => userResponse(input, { color: 'red' })).toThrow(/question "tags" is required/);
    expect(() => validateHostInputResponse(input, { answers: { color: 'red', tags: ['a'] }, source: 'guess' as never })).toThrow(/unknown source/);
  });

  it('refuses secret answers too short to mask and lists secret values for masking', () => {
    const secret = createHostInput({
      questions: [
        { id: 'token', question: 'Token?', secret: true },
        { id: 'user', question: 'User?' },
      ],
    });
    expect(() => userResponse(secret, { token: 'abc', user: 'me' })).toThrow(/at least 4 characters/);
    const response = userResponse(secret, { token: 'abcd-1234', user: 'me' });
    expect(secretAnswerValues(secret, response.answers)).toEqual(['abcd-1234']);
  });
});
