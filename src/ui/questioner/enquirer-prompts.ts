import type { EventEmitter } from 'node:events';
import { ToolError } from '../../host/errors.js';
import { answerProblem, type Answer, type HostInputRequest, type Question } from '../../host/host-input.js';
import { Countdown } from './countdown.js';
import type { PromptLock } from './prompt-lock.js';
import { askedBy } from './request-label.js';
import { printable, safeText } from '../safe-text.js';

/** Where prompts read keys and draw. */
export interface PromptTerminal {
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
  lock: PromptLock;
}

/** The part of an enquirer prompt rho uses (enquirer's own typings only declare the base class). */
interface Prompt extends EventEmitter {
  run(): Promise<unknown>;
  render(): unknown;
  cancel(): Promise<void>;
}
type PromptClass = new (options: Record<string, unknown>) => Prompt;
type PromptClasses = Record<'Input' | 'Password' | 'Select' | 'MultiSelect' | 'Confirm', PromptClass>;

/** How a form ended: answered, the countdown expired untouched, or Ctrl-C (which interrupts the whole run). */
export type PromptOutcome = { kind: 'answered'; answers: Record<string, Answer> } | { kind: 'expired' } | { kind: 'interrupted' };

interface Keypress {
  name?: string;
  ctrl?: boolean;
}

/** What a prompt returned, as the question's answer (an optional text left empty has none). */
function answerOf(question: Question, value: unknown): Answer | undefined {
  if (question.type === 'text' && value === '' && !question.required) return undefined;
  return value as Answer;
}

function promptOptions(question: Question, terminal: PromptTerminal, message: string): { type: keyof PromptClasses; options: Record<string, unknown> } {
  const base = {
    name: question.id,
    message,
    stdin: terminal.input,
    stdout: terminal.output,
    validate: (value: unknown) => {
      const answer = answerOf(question, value);
      return answer === undefined ? true : (answerProblem(question, answer) ?? true);
    },
  };
  switch (question.type) {
    case 'text':
      return question.secret ? { type: 'Password', options: base } : { type: 'Input', options: { ...base, initial: question.default } };
    case 'confirm':
      return { type: 'Confirm', options: { ...base, initial: question.default } };
    case 'choice': {
      // A choice is shown as text (`message`) and answered as it is (`name`).
      const choices = (question.choices ?? []).map((label) => ({ name: label, message: printable(label) }));
      const initial = question.default === undefined ? undefined : question.choices?.indexOf(question.default as string);
      return { type: 'Select', options: { ...base, choices, initial } };
    }
    case 'multi': {
      const preselected = Array.isArray(question.default) ? question.default : [];
      const choices = (question.choices ?? []).map((label) => ({ name: label, message: printable(label), enabled: preselected.includes(label) }));
      // enquirer tells a selected choice from another only by colour; boxes read without it.
      return { type: 'MultiSelect', options: { ...base, choices, initial: preselected, indicator: { on: '[x]', off: '[ ]' } } };
    }
  }
}

function countdownLine(countdown: Countdown, reason: string): string {
  return `  no answer in ${countdown.remainingSeconds()}s applies the fallback (${reason}); press any key to answer yourself`;
}

/** How one prompt ended: a value, closed without one (countdown, cancellation, Escape), or Ctrl-C. */
type PromptEnding = { kind: 'value'; value: unknown } | { kind: 'closed' } | { kind: 'interrupted' };

/** Runs a prompt; any key stops the countdown for good. */
async function runPrompt(prompt: Prompt, countdown: Countdown | undefined): Promise<PromptEnding> {
  let lastKey: Keypress = {};
  prompt.on('keypress', (_input: unknown, key: Keypress | undefined) => {
    countdown?.stop();
    lastKey = key ?? {};
  });
  try {
    return { kind: 'value', value: await prompt.run() };
  } catch {
    return lastKey.ctrl === true && lastKey.name === 'c' ? { kind: 'interrupted' } : { kind: 'closed' };
  }
}

/**
 * Asks the questions one prompt at a time. With `countdownSeconds`, a countdown runs from the
 * moment the form opens; the first key the person presses stops it for good, and when it
 * expires untouched the prompt closes and the outcome is `expired` (the caller applies the fallback).
 */
export async function promptForAnswers(
  terminal: PromptTerminal,
  request: HostInputRequest,
  questions: readonly Question[],
  countdownSeconds: number | undefined,
  signal: AbortSignal,
  mask: (text: string) => string = (text) => text,
): Promise<PromptOutcome> {
  return terminal.lock.run(async () => {
    // enquirer loads only when a form is shown, not with every run.
    const prompts = (await import('enquirer')).default as unknown as PromptClasses;
    const answers: Record<string, Answer> = {};
    let active: Prompt | undefined;
    const countdown = countdownSeconds === undefined ? undefined : new Countdown(countdownSeconds, { tick: () => void active?.render(), expire: () => void active?.cancel() });
    // Questions come from tools and MCP servers: what they ask is shown as text, never obeyed by the terminal.
    const reason = printable(mask(request.timeoutFallback?.reason ?? ''));
    const footer = () => (countdown?.running ? countdownLine(countdown, reason) : '');
    const onAbort = () => void active?.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      for (const question of questions) {
        if (signal.aborted) break;
        const message = safeText(mask(`${request.stepId ? `[${request.stepId}] ` : ''}${question.question}`), false);
        const { type, options } = promptOptions(question, terminal, message);
        active = new prompts[type]({ ...options, footer });
        const ending = await runPrompt(active, countdown);
        if (ending.kind === 'interrupted') return ending;
        if (ending.kind === 'closed') {
          if (countdown?.expired) return { kind: 'expired' };
          if (signal.aborted) break;
          throw new ToolError('cancelled', `the questions of ${askedBy(request)} were closed without an answer`);
        }
        const answer = answerOf(question, ending.value);
        if (answer !== undefined) answers[question.id] = answer;
      }
    } finally {
      countdown?.stop();
      signal.removeEventListener('abort', onAbort);
    }
    if (signal.aborted) throw new ToolError('cancelled', `the questions of ${askedBy(request)} were cancelled`);
    return { kind: 'answered', answers };
  });
}
