/** Questions a tool asks the person running it (or the scripted answers standing in for them). */
export type QuestionType = 'text' | 'choice' | 'multi' | 'confirm';
export type Answer = string | boolean | readonly string[];

export interface Question {
  id: string;
  question: string;
  type: QuestionType;
  choices?: readonly string[];
  default?: Answer;
  required: boolean;
  secret: boolean;
}

export interface TimeoutFallback {
  answers: Readonly<Record<string, Answer>>;
  reason: string;
}

export interface HostInput {
  questions: readonly Question[];
  timeoutFallback?: TimeoutFallback;
}

export type HostInputSource = 'user' | 'timeout_fallback';

export interface HostInputResponse {
  answers: Readonly<Record<string, Answer>>;
  source: HostInputSource;
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
