import type { SandboxStatus } from '../../host/confinement/status.js';
import type { RunEvent } from '../../host/events.js';
import { ListrPromptHost } from '../approver/listr-prompt-host.js';
import { printable } from '../approver/facts.js';
import { describeFinish, formatDuration, formatSummary } from './format.js';
import { runnerLineBreak } from './guarded-sink.js';
import type { Renderer, TextSink } from './renderer.js';

type StepFinished = Extract<RunEvent, { type: 'step_finished' }>;

interface TaskHandle {
  title: string;
  output: string;
}

/** Colour and cursor sequences (CSI, OSC) a process prints; they would repaint the list. */
const terminalSequence = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?/g;

/** A line of step output made safe to draw inside the list: no sequences, tabs as spaces, other control characters escaped. */
function drawable(line: string): string {
  return printable(line.replace(terminalSequence, '').replace(/\t/g, '  '));
}

/** How many of a step's latest output lines are shown under it. */
export const outputLinesShown = 5;

/**
 * What a step's task shows: its title, every decision made for it and its latest output lines,
 * all kept after the run, so the screen keeps what each step said and who allowed what. Events can arrive before listr2 has started the task (the first steps start while
 * listr2 is still loading), so the state is kept here and copied onto the task when it attaches.
 */
class StepTask {
  private started = false;
  private status: string | undefined;
  private readonly decisions: string[] = [];
  private lines: string[] = [];
  private handle: TaskHandle | undefined;
  readonly finished: Promise<StepFinished>;
  settle: (event: StepFinished) => void = () => {};

  constructor(readonly name: string) {
    this.finished = new Promise((resolve) => (this.settle = resolve));
  }

  get title(): string {
    return this.started ? this.name : `${this.name} (waiting)`;
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

  /** Lines the step printed; only the latest few are kept. */
  print(text: string): void {
    this.status = undefined;
    this.lines.push(...text.split(runnerLineBreak).map(drawable));
    if (this.lines.length > outputLinesShown) this.lines = this.lines.slice(-outputLinesShown);
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

  private draw(): void {
    if (!this.handle) return;
    const shown = [...this.decisions, ...this.lines, ...(this.status ? [this.status] : [])];
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
      case 'approval_requested':
        this.tasks.get(event.stepId)?.wait(`waiting for approval of a ${event.class} request (#${event.request})`);
        return;
      case 'approval_decided':
        if (event.decider !== 'policy') {
          const verdict = event.result === 'allow' ? '✔ allowed' : '✖ denied';
          this.tasks.get(event.stepId)?.decide(`${verdict} by ${event.decider}: ${event.class} request #${event.request}`);
        }
        return;
      case 'question_asked':
        this.tasks.get(event.stepId)?.wait(`waiting for an answer to: ${event.questionIds.join(', ')}`);
        return;
      case 'question_answered':
        this.tasks.get(event.stepId)?.decide(`answered (${event.source === 'user' ? 'by you' : 'by the timeout fallback'})`);
        return;
      case 'step_finished':
        this.finished.push(event);
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
    for (const line of this.summary) this.out.write(`${line}\n`);
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
              task.title = `${step.name} [${formatDuration(event.durationMs)}]`;
              if (event.status === 'success') return;
              if (neverRan(event)) return task.skip(`${step.name} — ${event.status}: ${event.reason ?? describeFinish(event)}`);
              throw new Error(describeFinish(event));
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

/** A step that never executed: skipped by its `if:` or a failure, up to date, or cancelled before it started. */
function neverRan(event: StepFinished): boolean {
  return event.status === 'skipped' || event.status === 'up_to_date' || (event.status === 'cancelled' && event.error === undefined);
}
