import type { RunEvent } from '../../host/events.js';
import { ListrPromptHost } from '../approver/listr-prompt-host.js';
import { describeFinish, formatSummary } from './format.js';
import type { Renderer, TextSink } from './renderer.js';

type StepFinished = Extract<RunEvent, { type: 'step_finished' }>;

interface TaskHandle {
  title: string;
  output: string;
}

/**
 * What a step's task shows. Events can arrive before listr2 has started the task (the first
 * steps start while listr2 is still loading), so the state is kept here and copied onto the
 * task when it attaches.
 */
class StepTask {
  private started = false;
  private output: string | undefined;
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
    if (this.output !== undefined) handle.output = this.output;
  }

  start(): void {
    this.started = true;
    if (this.handle) this.handle.title = this.title;
  }

  show(line: string): void {
    this.output = line;
    if (this.handle) this.handle.output = line;
  }
}

/** Shows a step's run time beside its title (listr2 calls `format` even though its type marks it optional). */
const timer = { condition: true, field: (ms: number) => `${(ms / 1000).toFixed(1)}s`, format: () => (text?: string) => text ?? '' };

/**
 * listr2's default renderer on a terminal: one task per step, driven by run events, so steps
 * that run at the same time spin at the same time, each with its last progress line. The
 * tasks only wait for their step's events; the runner decides what runs when.
 */
export class FancyRenderer implements Renderer {
  private readonly tasks = new Map<string, StepTask>();
  private readonly finished: StepFinished[] = [];
  private readonly names = new Map<string, string>();
  private listDone: Promise<unknown> = Promise.resolve();
  private summary: string[] = [];
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
        this.listDone = this.start(event.steps);
        return;
      case 'step_started':
        this.tasks.get(event.stepId)?.start();
        return;
      case 'step_progress':
        this.tasks.get(event.stepId)?.show(event.message);
        return;
      case 'approval_requested':
        this.tasks.get(event.stepId)?.show(`waiting for approval of a ${event.class} request`);
        return;
      case 'question_asked':
        this.tasks.get(event.stepId)?.show(`waiting for an answer to: ${event.questionIds.join(', ')}`);
        return;
      case 'step_finished':
        this.finished.push(event);
        this.tasks.get(event.stepId)?.settle(event);
        return;
      case 'run_finished':
        this.summary = formatSummary(this.finished, event, this.names);
        return;
      default:
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
            task: async (_: unknown, task: TaskHandle & { skip(message?: string): void }) => {
              entry.attach(task);
              const event = await entry.finished;
              task.title = step.name;
              if (event.status === 'success') return;
              if (event.status === 'skipped' || event.status === 'cancelled') return task.skip(`${step.name}: ${describeFinish(event)}`);
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
        rendererOptions: { collapseErrors: false, showErrorMessage: true, collapseSkips: false, timer },
      },
    );
    await list.run().catch(() => undefined);
  }
}
