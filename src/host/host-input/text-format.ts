import type { Question } from './schema.js';

const numberPattern = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const integerPattern = /^-?(?:0|[1-9]\d*)$/;
const emailPattern = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;
const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;
const dateTimePattern = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

/** Whether a question's answers are numbers written as text. */
export function numericFormat(question: Pick<Question, 'format'>): boolean {
  return question.format === 'number' || question.format === 'integer';
}

function isCalendarDate(text: string): boolean {
  const match = datePattern.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function isUri(text: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(text)) return false;
  try {
    new URL(text);
    return true;
  } catch {
    return false;
  }
}

function numberProblem(question: Question, text: string): string | undefined {
  const integer = question.format === 'integer';
  if (!(integer ? integerPattern : numberPattern).test(text.trim())) return integer ? 'an integer, such as 42' : 'a number, such as 3.14';
  const value = Number(text);
  if (!Number.isFinite(value) || (integer && !Number.isSafeInteger(value))) return 'a number rho can represent exactly';
  if (question.minimum !== undefined && value < question.minimum) return `at least ${question.minimum}`;
  if (question.maximum !== undefined && value > question.maximum) return `at most ${question.maximum}`;
  return undefined;
}

/** Why a non-empty text answer does not have its question's format, or undefined when it does. */
export function formatProblem(question: Question, text: string): string | undefined {
  switch (question.format) {
    case undefined:
      return undefined;
    case 'number':
    case 'integer':
      return numberProblem(question, text);
    case 'email':
      return emailPattern.test(text) ? undefined : 'an email address, such as ada@example.org';
    case 'uri':
      return isUri(text) ? undefined : 'a URI, such as https://example.org/';
    case 'date':
      return isCalendarDate(text) ? undefined : 'a date as YYYY-MM-DD';
    case 'date-time':
      return dateTimePattern.test(text) && isCalendarDate(text.slice(0, 10)) && !Number.isNaN(Date.parse(text)) ? undefined : 'a date and time as YYYY-MM-DDTHH:MM:SSZ';
  }
}
