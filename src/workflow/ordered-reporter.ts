import type { RunEvent } from '../host/events.js';

type StepFinished = Extract<RunEvent, { type: 'step_finished' }>;

/**
 * Reports step_finished events in model order: a step that finishes early is held until every
 * earlier step has been reported (step_started is live: the host reports it). A
 * detached step gives up its place in the order: later steps are not held for it, and its own
 * result is reported when it completes (once the steps before it are reported).
 */
export class OrderedReporter {
  private next = 0;
  private readonly held = new Map<number, StepFinished>();
  private readonly detachedSteps = new Set<number>();

  constructor(private readonly emit: (event: StepFinished) => void) {}

  detached(index: number): void {
    this.detachedSteps.add(index);
    this.flush();
  }

  finished(index: number, event: StepFinished): void {
    if (this.detachedSteps.delete(index) && index < this.next) {
      this.emit(event);
      return;
    }
    this.held.set(index, event);
    this.flush();
  }

  private flush(): void {
    for (;;) {
      const ready = this.held.get(this.next);
      if (ready) {
        this.held.delete(this.next++);
        this.emit(ready);
      } else if (this.detachedSteps.has(this.next)) {
        this.next += 1;
      } else {
        return;
      }
    }
  }
}
