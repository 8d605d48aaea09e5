import { ToolError } from '../../host/errors.js';
import { answerProblem, type Answer, type HostInputRequest, type Question } from '../../host/host-input.js';
import { askedBy } from './request-label.js';
import type { ScriptedAnswer } from './scripted-answers.js';

const yes = /^(true|yes|y)$/i;
const no = /^(false|no|n)$/i;

type Conversion = { answer: Answer } | { problem: string };

/** Reads a scripted value as the question's type: flags are text, so `true`/`a,b` are converted here. */
function convert(question: Question, value: ScriptedAnswer['value']): Conversion {
  switch (question.type) {
    case 'confirm':
      if (typeof value === 'boolean') return { answer: value };
      if (typeof value === 'string' && yes.test(value.trim())) return { answer: true };
      if (typeof value === 'string' && no.test(value.trim())) return { answer: false };
      return { problem: 'a confirm answer is true or false (yes/no)' };
    case 'multi':
      if (typeof value === 'string') return { answer: value.trim() === '' ? [] : value.split(',').map((item) => item.trim()) };
      if (Array.isArray(value)) return { answer: value };
      return { problem: 'a multi answer is a list (comma-separated on the command line)' };
    case 'text':
      return { answer: typeof value === 'boolean' ? String(value) : value };
    case 'choice':
      return typeof value === 'string' ? { answer: value } : { problem: 'a choice answer is one of the choices' };
  }
}

/** Where a step's question is named in messages. */
export function questionLabel(request: HostInputRequest, question: Question): string {
  return `${askedBy(request)}: question ${JSON.stringify(question.id)}`;
}

/**
 * Turns a scripted answer into the question's type and checks it with the same rules every
 * answer passes (`answerProblem`); a bad one names the question and the flag it came from.
 */
export function convertScriptedAnswer(request: HostInputRequest, question: Question, scripted: ScriptedAnswer): Answer {
  const conversion = convert(question, scripted.value);
  const problem = 'problem' in conversion ? conversion.problem : answerProblem(question, conversion.answer);
  if (problem !== undefined || 'problem' in conversion) {
    throw new ToolError('invalid_arguments', `${questionLabel(request, question)} (${question.question}): ${scripted.origin}: ${problem}`);
  }
  return conversion.answer;
}
