import type { RunEvent } from '../host/events.js';
import type { SecretMasker } from '../host/masking.js';
import type { RunPorts } from '../workflow/launch.js';
import { createApprovals } from './approver/index.js';
import { cliGrantHints } from './grant-hints.js';
import { createQuestioner, type ScriptedAnswers } from './questioner/index.js';
import type { Renderer } from './render/renderer.js';

/** Who answers a run's requests and questions, and what its denials suggest. */
export type RunAnswerers = Pick<RunPorts, 'approver' | 'onScriptedDecision' | 'questioner' | 'grantHints'>;

/** What the person at the terminal answers with: the run's choices, its display and its masking. */
export interface TerminalFrontOptions {
  /** Whether prompts may be shown (a terminal, and no `--no-interactive`). */
  interactive: boolean;
  /** How long a question waits for its answer before its default is taken. */
  questionTimeoutSeconds: number | undefined;
  /** The run's display and reports, when it has one: prompts pause it, flag decisions show in it. */
  reports: Renderer | undefined;
  masker: SecretMasker;
  /** Answers given ahead of time (`--answer`, `--answers-file`). */
  answers: ScriptedAnswers;
  warn(line: string): void;
  emit(event: RunEvent): void;
  /** Stops the run (Ctrl-C at a prompt). */
  interrupt(): void;
}

/** The person at the terminal: prompts when one can be asked, the flags' answers, and the echo of each flag decision. */
export function terminalFront(options: TerminalFrontOptions): RunAnswerers {
  const { reports, masker, warn, emit, interrupt } = options;
  const mask = (text: string) => masker.mask(text);
  const terminal = reports?.promptTerminal;
  const approvals = createApprovals({
    interactive: options.interactive,
    terminal,
    onInterrupt: interrupt,
    // A decision of --approve or --yes is shown with its step; without a display, on stderr.
    echo: (stepId, line) => (reports ? emit({ type: 'step_progress', stepId: stepId ?? '', message: line }) : warn(line)),
    mask,
  });
  const questioner = createQuestioner({
    interactive: options.interactive,
    answers: options.answers,
    timeoutSeconds: options.questionTimeoutSeconds,
    report: warn,
    onSecret: (value) => masker.add(value),
    terminal,
    onInterrupt: interrupt,
    mask,
  });
  return { approver: approvals.approver, onScriptedDecision: approvals.onScriptedDecision, questioner, grantHints: cliGrantHints };
}
