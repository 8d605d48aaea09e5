import { ToolError } from '../../host/errors.js';
import {
  secretAnswerValues,
  timeoutFallbackResponse,
  userResponse,
  type Answer,
  type HostInputRequest,
  type HostInputResponse,
  type Question,
  type Questioner,
} from '../../host/host-input.js';
import { convertScriptedAnswer, questionLabel } from './convert-answer.js';
import { promptForAnswers, type PromptTerminal } from './enquirer-prompts.js';
import { createPromptLock } from './prompt-lock.js';
import { askedBy } from './request-label.js';
import { scriptedAnswerFor, type ScriptedAnswers } from './scripted-answers.js';

export interface QuestionerOptions {
  /** Whether a person can be prompted: a TTY on stdin, not CI, no --no-input. */
  interactive: boolean;
  /** `--answers FILE` and `--answer ID=VALUE`, combined (see `combineAnswers`). */
  answers?: ScriptedAnswers;
  /** `--question-timeout SECONDS`: enables on_timeout fallbacks. Off when undefined. */
  timeoutSeconds?: number;
  /** Receives one line per scripted or fallback answer, so a log shows who decided what (secrets as ***). */
  report?: (line: string) => void;
  /** Receives every secret answer, so the output can mask it. */
  onSecret?: (value: string) => void;
  /**
   * Where prompts read and draw when interactive; share it (and its lock) with the approver
   * (`ListrPromptHost.terminal` under the fancy renderer). Defaults to stdin and stderr.
   */
  terminal?: PromptTerminal;
  /** Ctrl-C at a question: stop the run as SIGINT does (exit 130). */
  onInterrupt?: () => void;
  /** Hides secrets in what prompts show. */
  mask?: (text: string) => string;
}

function display(question: Question, answer: Answer): string {
  if (question.secret) return '***';
  return Array.isArray(answer) ? answer.join(',') : String(answer);
}

/** Scripted answers for this request's questions, converted and checked; the questions nobody scripted. */
function scriptedPart(request: HostInputRequest, answers: ScriptedAnswers, report: (line: string) => void) {
  const given: Record<string, Answer> = {};
  const missing: Question[] = [];
  for (const question of request.questions) {
    const scripted = scriptedAnswerFor(answers, request.stepId, question.id);
    if (!scripted) {
      missing.push(question);
      continue;
    }
    given[question.id] = convertScriptedAnswer(request, question, scripted);
    report(`${askedBy(request)}: answered ${question.id}=${display(question, given[question.id]!)} (${scripted.origin})`);
  }
  return { given, missing };
}

/** The flag key that answers a question: scoped to its step when there is one. */
function answerKey(request: HostInputRequest, question: Question): string {
  return request.stepId ? `${request.stepId}.${question.id}` : question.id;
}

function missingAnswer(request: HostInputRequest, question: Question, timeoutSeconds: number | undefined, nothingGiven: boolean): ToolError {
  const fallbackHint = request.timeoutFallback && timeoutSeconds === undefined && nothingGiven ? ', or with --question-timeout SECONDS to apply its on_timeout answers' : '';
  return new ToolError(
    'unsupported',
    `${questionLabel(request, question)} (${question.question}) has no answer and nobody can be asked here; ` +
      `run again with --answer ${answerKey(request, question)}=VALUE (or --answers FILE)${fallbackHint}`,
  );
}

/**
 * The questioner the CLI passes to the host. Answers given by flags are used first and echoed;
 * the remaining questions are prompted on a terminal (with a countdown when --question-timeout
 * is set, the questionnaire has on_timeout, and nothing was scripted). Unattended, a fallback
 * applies at once when --question-timeout is set (nobody can start answering, so the timer's
 * end is certain); otherwise a question without an answer fails the step, naming the flag.
 */
export function createQuestioner(options: QuestionerOptions): Questioner {
  const report = options.report ?? (() => {});
  const answers = options.answers ?? new Map();
  // Unattended, stdin is never touched (not even to create its stream).
  const terminal = options.interactive ? (options.terminal ?? { input: process.stdin, output: process.stderr, lock: createPromptLock() }) : undefined;

  async function answer(request: HostInputRequest, signal: AbortSignal): Promise<HostInputResponse> {
    const { given, missing } = scriptedPart(request, answers, report);
    const nothingGiven = Object.keys(given).length === 0;
    const fallbackApplies = nothingGiven && request.timeoutFallback !== undefined && options.timeoutSeconds !== undefined;
    if (missing.length === 0) return userResponse(request, given);
    if (terminal) {
      const countdown = fallbackApplies ? options.timeoutSeconds : undefined;
      const outcome = await promptForAnswers(terminal, request, missing, countdown, signal, options.mask);
      if (outcome.kind === 'answered') return userResponse(request, { ...given, ...outcome.answers });
      if (outcome.kind === 'interrupted') {
        options.onInterrupt?.();
        throw new ToolError('interrupted', `the run was interrupted at a question of ${askedBy(request)} (Ctrl-C)`);
      }
      report(`${askedBy(request)}: no answer within ${options.timeoutSeconds}s; applied the on_timeout answers (${request.timeoutFallback?.reason})`);
      return timeoutFallbackResponse(request);
    }
    if (fallbackApplies) {
      report(`${askedBy(request)}: nobody can answer here; applied the on_timeout answers (${request.timeoutFallback?.reason})`);
      return timeoutFallbackResponse(request);
    }
    const unanswered = missing.find((question) => question.required);
    if (unanswered) throw missingAnswer(request, unanswered, options.timeoutSeconds, nothingGiven);
    return userResponse(request, given);
  }

  return {
    async ask(request, signal) {
      const response = await answer(request, signal);
      for (const secret of secretAnswerValues(request, response.answers)) options.onSecret?.(secret);
      return response;
    },
  };
}
