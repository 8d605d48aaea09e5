import type { Writable } from 'node:stream';
import { createWritable, ListrPromptAdapter, ListrTaskEventType, type DefaultRenderer, type ListrTask, type ListrTaskWrapper, type SimpleRenderer } from 'listr2';
import { createPromptLock, type PromptTerminal } from '../questioner/index.js';

type HostWrapper = ListrTaskWrapper<unknown, typeof DefaultRenderer, typeof SimpleRenderer>;

/** Marks the host task as prompting while a prompt is open, so the renderer draws it below the list. */
class PromptSlot extends ListrPromptAdapter {
  async run<T>(work: () => Promise<T>): Promise<T> {
    this.reportStarted();
    try {
      return await work();
    } finally {
      // "Completed" (never "failed") lets the renderer release the prompt area for the next one.
      this.reportCompleted();
    }
  }
}

/**
 * Lets enquirer prompts (approvals and questions) appear inside a running listr2 default
 * renderer, which owns the terminal while it draws. Add `task` to the Listr (it has no title,
 * so it is never drawn, and stays pending so prompts always have a home), give `terminal` to
 * the approver and the questioner, and call `close()` when the run ends.
 *
 * While a prompt is open its output goes through listr2's prompt channel and is drawn under
 * the steps, which keep updating; keys are read from `input` as usual.
 */
export class ListrPromptHost {
  readonly task: ListrTask<unknown, typeof DefaultRenderer, typeof SimpleRenderer>;
  readonly terminal: PromptTerminal;
  private readonly wrapper: Promise<HostWrapper>;
  private finish: () => void = () => {};
  private current: Writable | undefined;

  constructor(input: NodeJS.ReadStream = process.stdin) {
    let provide: (wrapper: HostWrapper) => void = () => {};
    this.wrapper = new Promise((resolve) => (provide = resolve));
    const finished = new Promise<void>((resolve) => (this.finish = resolve));
    this.task = {
      task: (_context, wrapper) => {
        provide(wrapper);
        return finished;
      },
    };
    const lock = createPromptLock();
    const output = createWritable((chunk) => this.current?.write(chunk)) as unknown as NodeJS.WriteStream;
    this.terminal = { input, output, lock: { run: (work) => lock.run(() => this.inSlot(work)) } };
  }

  /** Lets the list finish (call when the run is over). */
  close(): void {
    this.finish();
  }

  private async inSlot<T>(work: () => Promise<T>): Promise<T> {
    const wrapper = await this.wrapper;
    this.current = wrapper.stdout(ListrTaskEventType.PROMPT);
    try {
      return await new PromptSlot(wrapper.task, wrapper).run(work);
    } finally {
      this.current = undefined;
    }
  }
}
