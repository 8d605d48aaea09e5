import type { EventEmitter } from 'node:events';
import type { ApprovalAnswer } from '../../host/approval.js';
import type { PromptTerminal } from '../questioner/index.js';

/** The part of enquirer's Select prompt used here (enquirer's typings declare only the base class). */
interface SelectPrompt extends EventEmitter {
  run(): Promise<unknown>;
  cancel(): Promise<void>;
}
type SelectClass = new (options: Record<string, unknown>) => SelectPrompt;

/** How a prompt ended: an answer, or Ctrl-C (which interrupts the whole run). */
export type PromptEnding = ApprovalAnswer | 'interrupt';

export const approvalChoices: readonly { name: ApprovalAnswer; message: string }[] = [
  { name: 'allow_once', message: 'Allow once' },
  { name: 'allow_run', message: 'Allow for this run' },
  { name: 'deny', message: 'Deny' },
];

interface Keypress {
  name?: string;
  ctrl?: boolean;
}

/**
 * Shows one approval prompt and waits for its answer. Escape denies; Ctrl-C ends as
 * `interrupt`; an aborted signal closes the prompt at once (the result no longer matters, so
 * it ends as `deny`). Nothing is left on the terminal waiting for a key. A request whose tool
 * never has its approvals remembered is not offered "Allow for this run".
 */
export async function promptForApproval(terminal: PromptTerminal, header: string, signal: AbortSignal, rememberable = true): Promise<PromptEnding> {
  // enquirer loads only when a prompt is shown, not with every run.
  const { Select } = (await import('enquirer')).default as unknown as { Select: SelectClass };
  if (signal.aborted) return 'deny';
  let lastKey: Keypress = {};
  const prompt = new Select({
    name: 'approval',
    message: 'Allow this request?',
    header,
    choices: approvalChoices.filter((choice) => rememberable || choice.name !== 'allow_run').map((choice) => ({ ...choice })),
    stdin: terminal.input,
    stdout: terminal.output,
  });
  prompt.on('keypress', (_input: unknown, key: Keypress) => (lastKey = key ?? {}));
  const onAbort = () => void prompt.cancel();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const value = await prompt.run();
    return approvalChoices.some((choice) => choice.name === value) ? (value as ApprovalAnswer) : 'deny';
  } catch {
    return !signal.aborted && lastKey.ctrl === true && lastKey.name === 'c' ? 'interrupt' : 'deny';
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
