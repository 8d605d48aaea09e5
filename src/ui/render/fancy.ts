import type { SandboxStatus } from '../../host/confinement/status.js';
import type { RunEvent } from '../../host/events.js';
import { ListrPromptHost } from '../approver/listr-prompt-host.js';
import { printable, safeText } from '../safe-text.js';
import { describeFinish, describeOmission, finishLines, formatCount, formatDuration, formatSummary, hostSuffix, statusText } from './format.js';
import { prefixLines } from './plain.js';
import type { Renderer, TextSink } from './renderer.js';
import { ToolError } from '../../host/errors.js';

type StepFinished = Extract<RunEvent, { type: 'step_finished' }>;

interface TaskHandle {
  title: string;
  output: string;
}

/** A line of step output made safe to draw inside the list: colours kept, tabs as spaces, everything else that acts on a terminal written out. */
function drawable(line: string): string {
  return safeText(line.replace(/\t/g, '  '), true);
}

/** How many of a step's latest output lines are shown under it. */
export const outputLinesShown = 5;

/** How often a step's output is drawn again at most: a step printing thousands of lines a second repaints ten times. */
export const drawIntervalMs = 100;

/**
 * What a step's task shows: its title, every decision made for it and its latest output lines
 * (under a count of the earlier ones), all kept after the run, so the screen keeps what each step
 * said and who allowed what. Everything it printed is kept too (the host bounds it per step),
 * for the run's end to show in full if the step fails. Events can arrive before listr2 has
 * started the task (the first steps start while listr2 is still loading), so the state is kept
 * here and copied onto the task when it attaches.
 */
class StepTask {
  private started = false;
  private status: string | undefined;
  private readonly decisions: string[] = [];
  private latest: string[] = [];
  private printedLines = 0;
  private printed: string[] = [];
  private omission: string | undefined;
  private handle: TaskHandle | undefined;
  private drawing: NodeJS.Timeout | undefined;
  readonly finished: Promise<StepFinished>;
  settle: (event: StepFinished) => void = () => {};

  constructor(readonly name: string) {
    this.finished = new Promise((resolve) => (this.settle = resolve));
  }

  get title(): string {
    return this.started ? printable(this.name) : `${printable(this.name)} (waiting)`;
  }

  attach(handle: TaskHandle): void {
    this.handle = handle;
    handle.title = this.title;
    this.draw();
  }

  start(): void {
    this.started = true;
    if (this.handle) this.handle.title = this.title;
  }

  /** Lines the step printed: the latest few are drawn, at most every `drawIntervalMs`. */
  print(text: string): void {
    this.status = undefined;
    const lines = (text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text).split('\n');
    this.printedLines += lines.length;
    this.printed.push(text);
    this.latest = lines.length >= outputLinesShown ? lines.slice(-outputLinesShown) : [...this.latest, ...lines].slice(-outputLinesShown);
    this.drawing ??= setTimeout(() => {
      this.drawing = undefined;
      this.draw();
    }, drawIntervalMs).unref();
  }

  /** The step printed more than the host passes on (`--output-limit`). */
  omitted(line: string): void {
    this.omission = line;
    this.draw();
  }

  /** What the step is waiting for (an approval, an answer); replaced by its next output. */
  wait(text: string): void {
    this.status = text;
    this.draw();
  }

  decide(text: string): void {
    this.status = undefined;
    this.decisions.push(text);
    this.draw();
  }

  /** A finished step waits for nothing any more. */
  end(): void {
    this.status = undefined;
    this.draw();
  }

  /** Everything the step printed, and what was left out of it. */
  get output(): { texts: readonly string[]; omission: string | undefined } {
    return { texts: this.printed, omission: this.omission };
  }

  /** A step that succeeded is not shown again: what it printed need not be kept. */
  forgetOutput(): void {
    this.printed = [];
  }

  private draw(): void {
    clearTimeout(this.drawing);
    this.drawing = undefined;
    if (!this.handle) return;
    const earlier = this.printedLines - this.latest.length;
    const shown = [
      ...this.decisions,
      ...(earlier > 0 ? [`… ${formatCount(earlier, 'earlier line')}`] : []),
      ...this.latest.map(drawable),
      ...(this.omission ? [this.omission] : []),
      ...(this.status ? [this.status] : []),
    ];
    this.handle.output = shown.join('\n');
  }
}

/**
 * listr2's default renderer on a terminal: one task per step, driven by run events, so steps
 * that run at the same time spin at the same time, each with its latest output lines. A step's
 * title ends with its own duration once it is done. The tasks only wait for their step's
 * events; the runner decides what runs when.
 */
export class FancyRenderer implements Renderer {
  private readonly tasks = new Map<string, StepTask>();
  /** The cells of a matrix expanded while the run goes on, by id: the list is drawn already, so they are shown in their group's task. */
  private readonly cells = new Map<string, StepTask>();
  private readonly finished: StepFinished[] = [];
  private readonly names = new Map<string, string>();
  private listDone: Promise<unknown> = Promise.resolve();
  private summary: string[] = [];
  private sandbox: SandboxStatus | undefined;
  private readonly prompts = new ListrPromptHost();
  readonly promptTerminal = this.prompts.terminal;

  constructor(private readonly out: TextSink) {}

  handle(event: RunEvent): void {
    switch (event.type) {
      case 'run_started':
        for (const step of event.steps) {
          this.names.set(step.id, step.name);
          this.tasks.set(step.id, new StepTask(step.name));
        }
        this.sandbox = event.sandbox;
        this.listDone = this.start(event.steps);
        return;
      case 'steps_added': {
        const group = this.tasks.get(event.group) ?? this.cells.get(event.group);
        for (const step of event.steps) {
          this.names.set(step.id, step.name);
          if (group) this.cells.set(step.id, group);
        }
        return;
      }
      case 'step_started':
        this.tasks.get(event.stepId)?.start();
        this.cells.get(event.stepId)?.start();
        return;
      case 'step_progress':
        this.tasks.get(event.stepId)?.print(event.message);
        this.cells.get(event.stepId)?.print(`[${event.stepId}] ${event.message}`);
        return;
      case 'step_output_omitted':
        this.tasks.get(event.stepId)?.omitted(describeOmission(event));
        return;
      case 'approval_requested':
        this.tasks.get(event.stepId)?.wait(`waiting for approval of a ${event.class} request${hostSuffix(event)} (#${event.request})`);
        return;
      case 'approval_decided':
        if (event.decider !== 'policy') {
          const verdict = event.result === 'allow' ? '✔ allowed' : '✖ denied';
          this.tasks.get(event.stepId)?.decide(`${verdict} by ${event.decider}: ${event.class} request #${event.request}${hostSuffix(event)}`);
        }
        return;
      case 'question_asked':
        this.tasks.get(event.stepId)?.wait(`waiting for an answer to: ${event.questionIds.join(', ')}`);
        return;
      case 'question_answered':
        this.tasks.get(event.stepId)?.decide(`answered (${event.source === 'user' ? 'by you' : 'by the timeout fallback'})`);
        return;
      case 'step_output_rewritten':
        this.tasks.get(event.stepId)?.decide(`output rewritten by ${event.by}`);
        return;
      case 'step_finished':
        this.finished.push(event);
        if (!showsOutputAgain(event)) this.tasks.get(event.stepId)?.forgetOutput();
        this.tasks.get(event.stepId)?.settle(event);
        this.cells.get(event.stepId)?.print(`${event.stepId}: ${describeFinish(event)}`);
        return;
      case 'run_finished':
        this.summary = formatSummary(this.finished, event, this.names, this.sandbox);
        return;
    }
  }

  async close(): Promise<void> {
    this.prompts.close();
    await this.listDone;
    for (const event of this.finished.filter(showsOutputAgain)) this.showOutput(event);
    this.out.write(this.summary.map((line) => `${line}\n`).join(''));
  }

  /** Under the list, everything a failed step printed (the list kept only its latest lines). */
  private showOutput(event: StepFinished): void {
    const task = this.tasks.get(event.stepId);
    if (!task || task.output.texts.length === 0) return;
    const { texts, omission } = task.output;
    this.out.write(`Everything ${printable(event.stepId)} printed before it failed:\n`);
    for (const text of texts) this.out.write(prefixLines(`[${event.stepId}] `, text));
    this.out.write(prefixLines(`[${event.stepId}] `, ...(omission ? [omission] : []), ...finishLines(event)));
  }

  private async start(steps: readonly { id: string; name: string }[]): Promise<void> {
    const { Listr } = await import('listr2');
    const list = new Listr(
      [
        ...steps.map((step) => {
          const entry = this.tasks.get(step.id) as StepTask;
          return {
            title: entry.title,
            rendererOptions: { outputBar: true, persistentOutput: true },
            task: async (_: unknown, task: TaskHandle & { skip(message?: string): void }) => {
              entry.attach(task);
              const event = await entry.finished;
              entry.end();
              task.title = `${printable(step.name)} [${formatDuration(event.durationMs)}]`;
              if (event.status === 'success') return;
              if (neverRan(event)) return task.skip(`${printable(step.name)} — ${statusText(event)}: ${event.reason ?? describeFinish(event)}`);
              // listr2 marks a task failed only when it throws.
              throw new ToolError('execution_failed', describeFinish(event));
            },
          };
        }),
        this.prompts.task,
      ],
      {
        concurrent: true,
        exitOnError: false,
        registerSignalListeners: false,
        rendererOptions: { collapseErrors: false, showErrorMessage: true, collapseSkips: true },
      },
    );
    await list.run().catch(() => undefined);
  }
}

/** A step that ran and failed: its whole output is shown again after the list. */
function showsOutputAgain(event: StepFinished): boolean {
  return event.status === 'failure';
}

/** A step that never executed: skipped by its `if:` or a failure, up to date, or cancelled before it started. */
function neverRan(event: StepFinished): boolean {
  return event.status === 'skipped' || event.status === 'up_to_date' || (event.status === 'cancelled' && event.error === undefined);
}
