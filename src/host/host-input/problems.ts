import { formatProblem, numericFormat } from './text-format.js';
import { questionnaireLimits, type Question, type RawQuestionnaire } from './schema.js';

/** One broken rule, at the field a person has to fix. */
export interface InputProblem {
  path: readonly (string | number)[];
  message: string;
}

function quoted(labels: readonly string[]): string {
  return labels.map((label) => JSON.stringify(label)).join(', ');
}

/** Why a value is not a valid answer to a question, or undefined when it is one. */
export function answerProblem(question: Question, value: unknown): string | undefined {
  switch (question.type) {
    case 'text': {
      if (typeof value !== 'string') return 'a text answer is a string';
      if (value.length > questionnaireLimits.textAnswerLength) return `longer than ${questionnaireLimits.textAnswerLength} characters`;
      if (question.required && value.trim().length === 0) return 'an answer is required';
      if (question.secret && value.length > 0 && value.length < questionnaireLimits.secretMinLength) {
        return `a secret answer needs at least ${questionnaireLimits.secretMinLength} characters so it can be masked`;
      }
      if (value.length === 0) return undefined;
      if (question.min_length !== undefined && value.length < question.min_length) return `at least ${question.min_length} characters`;
      if (question.max_length !== undefined && value.length > question.max_length) return `at most ${question.max_length} characters`;
      return question.format === undefined ? undefined : formatProblem(question, value);
    }
    case 'choice':
      if (typeof value !== 'string') return `a choice answer is one of ${quoted(question.choices ?? [])}`;
      if (!question.choices?.includes(value)) return `${JSON.stringify(value)} is not one of ${quoted(question.choices ?? [])}`;
      return undefined;
    case 'multi': {
      if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) return 'a multi answer is a list of strings';
      const unknown = value.filter((item) => !question.choices?.includes(item));
      if (unknown.length > 0) return `${quoted(unknown)} not offered (choices: ${quoted(question.choices ?? [])})`;
      const repeated = value.filter((item, index) => value.indexOf(item) !== index);
      if (repeated.length > 0) return `${quoted(repeated)} selected more than once`;
      if (question.required && value.length === 0) return 'at least one selection is required';
      if (question.min_items !== undefined && value.length > 0 && value.length < question.min_items) return `select at least ${question.min_items}`;
      if (question.max_items !== undefined && value.length > question.max_items) return `select at most ${question.max_items}`;
      return undefined;
    }
    case 'confirm':
      return typeof value === 'boolean' ? undefined : 'a confirm answer is true or false';
  }
}

/** Problems of a map of answers against the questions: unknown ids, invalid values, missing required ones. */
export function answersProblems(questions: readonly Question[], answers: Readonly<Record<string, unknown>>): InputProblem[] {
  const problems: InputProblem[] = [];
  const byId = new Map(questions.map((question) => [question.id, question]));
  for (const [id, value] of Object.entries(answers)) {
    const question = byId.get(id);
    if (!question) {
      problems.push({ path: [id], message: `no question has the id ${JSON.stringify(id)} (ids: ${quoted([...byId.keys()])})` });
      continue;
    }
    const problem = answerProblem(question, value);
    if (problem) problems.push({ path: [id], message: problem });
  }
  for (const question of questions) {
    if (question.required && !Object.hasOwn(answers, question.id)) {
      problems.push({ path: [question.id], message: `question ${JSON.stringify(question.id)} is required but has no answer` });
    }
  }
  return problems;
}

function questionProblems(question: Question, index: number): InputProblem[] {
  const at = (field: string, message: string): InputProblem => ({ path: ['questions', index, field], message });
  const problems: InputProblem[] = [];
  const offersChoices = question.type === 'choice' || question.type === 'multi';
  if (offersChoices && !question.choices) problems.push(at('choices', `a ${question.type} question needs choices`));
  if (!offersChoices && question.choices) problems.push(at('choices', `a ${question.type} question offers no choices`));
  const labels = question.choices ?? [];
  const repeated = labels.filter((label, position) => labels.indexOf(label) !== position);
  if (repeated.length > 0) problems.push(at('choices', `${quoted(repeated)} offered more than once`));
  if (question.secret && question.type !== 'text') problems.push(at('secret', 'only text questions can be secret'));
  if (question.secret && question.default !== undefined) problems.push(at('default', 'a secret question cannot have a default'));
  const textOnly = ['format', 'min_length', 'max_length'] as const;
  for (const field of textOnly) if (question[field] !== undefined && question.type !== 'text') problems.push(at(field, `only text questions take ${field}`));
  for (const field of ['minimum', 'maximum'] as const) {
    if (question[field] !== undefined && !numericFormat(question)) problems.push(at(field, `${field} needs format number or integer`));
  }
  for (const field of ['min_items', 'max_items'] as const) {
    if (question[field] !== undefined && question.type !== 'multi') problems.push(at(field, `only multi questions take ${field}`));
  }
  if (question.default !== undefined) {
    const problem = answerProblem({ ...question, required: false }, question.default);
    if (problem) problems.push(at('default', problem));
  }
  return problems;
}

/**
 * Every rule that relates questionnaire fields to each other (SPEC §8). `questions` must already
 * carry their final ids; `explicitIds` says which ids the author wrote.
 */
export function questionnaireProblems(questions: readonly Question[], explicitIds: readonly boolean[], raw: RawQuestionnaire): InputProblem[] {
  const problems = questions.flatMap(questionProblems);
  const ids = questions.map((question) => question.id);
  ids.forEach((id, index) => {
    if (ids.indexOf(id) !== index) problems.push({ path: ['questions', index, 'id'], message: `the id ${JSON.stringify(id)} is used twice` });
  });
  const fallback = raw.on_timeout;
  if (!fallback) return problems;
  explicitIds.forEach((explicit, index) => {
    if (!explicit) problems.push({ path: ['questions', index, 'id'], message: 'an explicit id is required when on_timeout is given' });
  });
  if (fallback.reason.trim().length === 0) {
    problems.push({ path: ['on_timeout', 'reason'], message: 'say why the fallback answers are safe to apply unattended' });
  }
  for (const problem of answersProblems(questions, fallback.answers)) {
    problems.push({ path: ['on_timeout', 'answers', ...problem.path], message: problem.message });
  }
  return problems;
}
