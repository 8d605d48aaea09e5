import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { HostError } from '../../host/errors.js';
import { questionIdPattern } from '../../host/host-input/schema.js';
import { prototypeKeyReason, prototypeKeys } from '../../host/prototype-keys.js';

/** An answer as a flag or an answers file wrote it; converted per question type when the question is asked. */
export type ScriptedValue = string | boolean | readonly string[];

export interface ScriptedAnswer {
  value: ScriptedValue;
  /** Where it came from, as a person would look for it: `--answer` or `--answers answers.yml`. */
  origin: string;
}

/** Answers given ahead of time, by question id. */
export type ScriptedAnswers = ReadonlyMap<string, ScriptedAnswer>;

/**
 * A step's path id (the workflow's step id pattern, a matrix cell's values after it, and the ids
 * of the nested groups it is in before it: `release/test (node=20)/ask`), for answers scoped to
 * one step: `STEP.ID`.
 */
const stepIdPattern = /^[a-z0-9][a-z0-9_-]*(?: \([^()\n]{1,1000}\))?(?:\/[a-z0-9][a-z0-9_-]*(?: \([^()\n]{1,1000}\))?)*$/;

/**
 * A question id, or `STEP.ID` for that step's question only (so two steps asking `name` get
 * their own answers). A question id has no dot, so the last one divides them.
 */
function checkId(key: string, where: string): void {
  const dot = key.lastIndexOf('.');
  const [step, id] = dot < 0 ? [undefined, key] : [key.slice(0, dot), key.slice(dot + 1)];
  if ((step !== undefined && !stepIdPattern.test(step)) || !questionIdPattern.test(id)) {
    throw new HostError('usage', `${where}: "${key}" is not a question id (letters, digits, "_" or "-"), nor STEP.ID for one step's question`);
  }
  if (prototypeKeys.has(id)) throw new HostError('usage', `${where}: "${key}" is not a question id: ${prototypeKeyReason}`);
}

/** The scripted answer for a step's question: scoped to the step (`STEP.ID`) first, then by id alone. */
export function scriptedAnswerFor(answers: ScriptedAnswers, stepId: string | undefined, questionId: string): ScriptedAnswer | undefined {
  return (stepId === undefined ? undefined : answers.get(`${stepId}.${questionId}`)) ?? answers.get(questionId);
}

/** Parses repeated `--answer ID=VALUE` flags; a list answer is written comma-separated. */
export function parseAnswerFlags(flags: readonly string[]): Map<string, ScriptedAnswer> {
  const answers = new Map<string, ScriptedAnswer>();
  for (const flag of flags) {
    const separator = flag.indexOf('=');
    if (separator <= 0) throw new HostError('usage', `--answer ${JSON.stringify(flag)}: expected ID=VALUE`);
    const id = flag.slice(0, separator);
    checkId(id, '--answer');
    if (answers.has(id)) throw new HostError('usage', `--answer ${id} is given more than once; write a list as ${id}=a,b`);
    answers.set(id, { value: flag.slice(separator + 1), origin: '--answer' });
  }
  return answers;
}

function scriptedValue(raw: unknown, where: string): ScriptedValue {
  if (typeof raw === 'string' || typeof raw === 'boolean') return raw;
  if (typeof raw === 'number' && Number.isFinite(raw)) return String(raw);
  if (Array.isArray(raw) && raw.every((item) => typeof item === 'string' || typeof item === 'number')) return raw.map(String);
  throw new HostError('usage', `${where}: an answer is a string, a boolean or a list of strings`);
}

/** Parses the text of an answers file: a YAML or JSON map of question id to answer. */
export function parseAnswersDocument(text: string, file: string): Map<string, ScriptedAnswer> {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (cause) {
    throw new HostError('usage', `--answers ${file}: not YAML or JSON: ${(cause as Error).message.split('\n')[0]}`, { cause });
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new HostError('usage', `--answers ${file}: expected a map of question id to answer`);
  }
  const answers = new Map<string, ScriptedAnswer>();
  for (const [id, raw] of Object.entries(document)) {
    checkId(id, `--answers ${file}`);
    answers.set(id, { value: scriptedValue(raw, `--answers ${file}: ${id}`), origin: `--answers ${file}` });
  }
  return answers;
}

export async function loadAnswersFile(file: string): Promise<Map<string, ScriptedAnswer>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    throw new HostError('usage', `--answers ${file} cannot be read (${(cause as NodeJS.ErrnoException).code ?? 'error'})`, { cause });
  }
  return parseAnswersDocument(text, file);
}

/** Answers from `--answers FILE` and `--answer` flags together; a flag wins over the file for the same id. */
export function combineAnswers(fromFile: ScriptedAnswers, fromFlags: ScriptedAnswers): ScriptedAnswers {
  return new Map([...fromFile, ...fromFlags]);
}
