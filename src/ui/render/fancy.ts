import type { RunEvent } from '../../workflow/events.js';
import { ListrPromptHost } from '../approver/listr-prompt-host.js';
import { describeFinish, formatSummary } from './format.js';
import type { Renderer, TextSink } from './renderer.js';

type StepFinished = Extract<RunEvent, { type: 'step_finished' }>;

interface TaskHandle {
  title(text: string): void;
  output(text: string): void;
}

interface StepTask {
  name: string;
  handle?: TaskHandle;
  settle?: (event: StepFinished) => void;
}

/**
 * listr2's default renderer on a terminal: one task per step, driven by run events. The tasks
 * only wait for their step's events; the runner decides what runs when.
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
        for (const step of event.steps) this.names.set(step.id, step.name);
        this.listDone = this.start(event.steps);
        return;
      case 'step_started':
        this.tasks.get(event.stepId)?.handle?.title(this.names.get(event.stepId) ?? event.stepId);
        return;
      case 'step_progress':
        this.tasks.get(event.stepId)?.handle?.output(event.message);
        return;
      case 'approval_requested':
        this.tasks.get(event.stepId)?.handle?.output(`waiting for approval of a ${event.class} request`);
        return;
      case 'question_asked':
        this.tasks.get(event.stepId)?.handle?.output(`waiting for an answer to: ${event.questionIds.join(', ')}`);
        return;
      case 'step_finished':
        this.finished.push(event);
        this.tasks.get(event.stepId)?.settle?.(event);
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
        const entry: StepTask = { name: step.name };
        this.tasks.set(step.id, entry);
        const settled = new Promise<StepFinished>((resolve) => (entry.settle = resolve));
        return {
          title: `${step.name} (waiting)`,
          task: async (_: unknown, task: { title: string; output: string; skip(message?: string): void }) => {
            entry.handle = {
              title: (text) => (task.title = text),
              output: (text) => (task.output = text),
            };
            const event = await settled;
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
        rendererOptions: { collapseErrors: false, showErrorMessage: true, collapseSkips: false, timer: { condition: true, field: (ms: number) => `${(ms / 1000).toFixed(1)}s` } },
      },
    );
    await list.run().catch(() => undefined);
  }
}
