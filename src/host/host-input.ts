/**
 * Host input: questions a tool asks the person running it (or the scripted answers standing in
 * for them), checked by one constructor, and the answers checked against the questions.
 */
import { z } from 'zod';
import { describeIssues } from './arguments.js';
import { builtOnce } from './built-once.js';
import { ToolError } from './errors.js';
import { answersProblems, questionnaireProblems } from './host-input/problems.js';
import { rawQuestionnaireShape, type Answer, type Question, type RawQuestionnaire } from './host-input/schema.js';

export { answerProblem } from './host-input/problems.js';
export { questionnaireLimits, questionTypes } from './host-input/schema.js';
export type { Answer, Question, QuestionType, RawQuestion, RawQuestionnaire } from './host-input/schema.js';

/** Answers applied when `--question-timeout` expires before anyone starts answering. */
export interface TimeoutFallback {
  readonly answers: Readonly<Record<string, Answer>>;
  /** Why these answers are safe to apply unattended. */
  readonly reason: string;
}

const checked: unique symbol = Symbol('checked HostInput');

/** A questionnaire that passed every rule. Only `createHostInput` makes one. */
export interface HostInput {
  readonly questions: readonly Question[];
  readonly timeoutFallback?: TimeoutFallback;
  readonly [checked]: true;
}

export type HostInputSource = 'user' | 'timeout_fallback';

export interface HostInputResponse {
  readonly answers: Readonly<Record<string, Answer>>;
  /** `user` for answers a person (or their scripted flags) gave; `timeout_fallback` for the request's fallback. */
  readonly source: HostInputSource;
}

export interface HostInputRequest extends HostInput {
  callId: string;
  stepId: string | undefined;
  tool: string;
}

/** Answers questions: the CLI passes an enquirer one or a scripted one; tests pass their own. */
export interface Questioner {
  ask(request: HostInputRequest, signal: AbortSignal): Promise<HostInputResponse>;
}

function assignIds(raw: RawQuestionnaire): Question[] {
  return raw.questions.map((question, index) => Object.freeze({ ...question, id: question.id ?? `q${index + 1}` }));
}

/**
 * The schema of the questionnaire JSON of SPEC §8, every rule included, built on first use: a
 * value it accepts is one `createHostInput` accepts, so a bad questionnaire fails while a call
 * is prepared.
 */
export const questionnaireSchema = builtOnce(() =>
  z.strictObject(rawQuestionnaireShape()).superRefine((raw, ctx) => {
    const explicitIds = raw.questions.map((question) => question.id !== undefined);
    for (const problem of questionnaireProblems(assignIds(raw), explicitIds, raw)) {
      ctx.addIssue({ code: 'custom', path: [...problem.path], message: problem.message });
    }
  }),
);

/** The validating constructor of a HostInput; throws `invalid_arguments` naming every broken rule. */
export function createHostInput(rawInput: unknown): HostInput {
  const parsed = questionnaireSchema().safeParse(rawInput);
  if (!parsed.success) throw new ToolError('invalid_arguments', `invalid questionnaire: ${describeIssues(parsed.error.issues)}`);
  const raw = parsed.data;
  const fallback = raw.on_timeout;
  return Object.freeze({
    questions: Object.freeze(assignIds(raw)),
    ...(fallback && { timeoutFallback: Object.freeze({ answers: freezeAnswers(fallback.answers), reason: fallback.reason.trim() }) }),
    [checked]: true as const,
  });
}

/** Whether a value came from `createHostInput` (tools written in plain JavaScript can pass anything). */
export function isHostInput(value: unknown): value is HostInput {
  return typeof value === 'object' && value !== null && (value as HostInput)[checked] === true;
}

function freezeAnswers(answers: Readonly<Record<string, Answer>>): Readonly<Record<string, Answer>> {
  return Object.freeze(Object.fromEntries(Object.entries(answers).map(([id, value]) => [id, Array.isArray(value) ? Object.freeze([...value]) : value])));
}

function sameAnswer(a: Answer | undefined, b: Answer | undefined): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, index) => item === b[index]);
  return a === b;
}

function sameAnswers(a: Readonly<Record<string, Answer>>, b: Readonly<Record<string, Answer>>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((id) => Object.hasOwn(b, id) && sameAnswer(a[id], b[id]));
}

function invalidResponse(message: string): ToolError {
  return new ToolError('invalid_arguments', `invalid answers: ${message}`);
}

/**
 * Checks a questioner's response against its request: valid answers for every question, and a
 * `timeout_fallback` response only when it is exactly the request's fallback (never invented or edited).
 */
export function validateHostInputResponse(input: HostInput, response: HostInputResponse): HostInputResponse {
  if (response.source !== 'user' && response.source !== 'timeout_fallback') {
    throw invalidResponse(`unknown source ${JSON.stringify(response.source)}`);
  }
  if (typeof response.answers !== 'object' || response.answers === null || Array.isArray(response.answers)) {
    throw invalidResponse('answers are a map of question id to answer');
  }
  if (response.source === 'timeout_fallback') {
    if (!input.timeoutFallback) throw invalidResponse('a timeout_fallback response for a questionnaire that has no on_timeout');
    if (!sameAnswers(response.answers, input.timeoutFallback.answers)) {
      throw invalidResponse("a timeout_fallback response must be exactly the questionnaire's on_timeout answers");
    }
  }
  const problems = answersProblems(input.questions, response.answers);
  if (problems.length > 0) throw invalidResponse(problems.map((problem) => `${problem.path.join('.')}: ${problem.message}`).join('; '));
  return Object.freeze({ answers: freezeAnswers(response.answers), source: response.source });
}

/** A response a person gave, checked against the questions. */
export function userResponse(input: HostInput, answers: Readonly<Record<string, Answer>>): HostInputResponse {
  return validateHostInputResponse(input, { answers, source: 'user' });
}

/** The request's own fallback, tagged so the result reports where the answers came from. */
export function timeoutFallbackResponse(input: HostInput): HostInputResponse {
  if (!input.timeoutFallback) throw new ToolError('internal', 'this questionnaire has no on_timeout answers to fall back to');
  return { answers: input.timeoutFallback.answers, source: 'timeout_fallback' };
}

/** The answer values that must be masked: answers to questions marked `secret`. */
export function secretAnswerValues(input: HostInput, answers: Readonly<Record<string, Answer>>): string[] {
  return input.questions.flatMap((question) => {
    const value = answers[question.id];
    return question.secret && typeof value === 'string' && value.length > 0 ? [value] : [];
  });
}
