import { describe, expect, it } from 'vitest';
import { EventDelivery } from '../../src/host/event-delivery.js';
import type { RunEvent } from '../../src/host/events.js';
import { maxQueuedProgress } from '../../src/host/progress-queue.js';

const burst = 3 * maxQueuedProgress;

function outputEvent(index: number): RunEvent {
  return { type: 'step_progress', stepId: 'dump', message: `line ${index}`, stream: 'stdout' };
}

function deliverBurst(delivery: EventDelivery): { seen: RunEvent[]; roomWhileBehind: Promise<void> | undefined } {
  const seen: RunEvent[] = [];
  delivery.add((event) => {
    seen.push(event);
  });
  // Emitted in one turn, before the listener's first: the listener is behind by all of them.
  for (let index = 0; index < burst; index++) delivery.deliver(outputEvent(index));
  return { seen, roomWhileBehind: delivery.room() };
}

describe('event delivery to a listener that is behind', () => {
  it('keeps every output event when output is not to be lost, and tells writers to wait until there is room', async () => {
    const delivery = new EventDelivery(() => {}, true);
    const { seen, roomWhileBehind } = deliverBurst(delivery);
    expect(roomWhileBehind).toBeInstanceOf(Promise);
    await roomWhileBehind;
    expect(seen.length).toBeGreaterThan(0);
    await delivery.flushed();
    expect(seen.map((event) => (event as { message: string }).message)).toEqual(Array.from({ length: burst }, (_, index) => `line ${index}`));
    expect(delivery.room()).toBeUndefined();
  });

  it('keeps dropping cosmetic progress past the bound even then', async () => {
    const delivery = new EventDelivery(() => {}, true);
    const seen: RunEvent[] = [];
    delivery.add((event) => {
      seen.push(event);
    });
    for (let index = 0; index < burst; index++) delivery.deliver({ type: 'step_progress', stepId: 'dump', message: `tick ${index}` });
    expect(delivery.room()).toBeUndefined();
    await delivery.flushed();
    expect(seen).toHaveLength(maxQueuedProgress + 1);
    expect(seen.at(-1)).toMatchObject({ message: `(${burst - maxQueuedProgress} progress messages were dropped while the reader was behind)` });
  });

  it('without that, drops output past the bound and counts it in a notice, and never makes writers wait', async () => {
    const delivery = new EventDelivery(() => {}, false);
    const { seen, roomWhileBehind } = deliverBurst(delivery);
    expect(roomWhileBehind).toBeUndefined();
    await delivery.flushed();
    expect(seen).toHaveLength(maxQueuedProgress + 1);
    expect(seen.at(-1)).toMatchObject({ message: `(${burst - maxQueuedProgress} progress messages were dropped while the reader was behind)` });
  });

  it('gives room when the listener that was behind is removed', async () => {
    const delivery = new EventDelivery(() => {}, true);
    const remove = delivery.add(() => new Promise(() => {}));
    for (let index = 0; index < burst; index++) delivery.deliver(outputEvent(index));
    const room = delivery.room();
    expect(room).toBeInstanceOf(Promise);
    remove();
    await room;
    expect(delivery.room()).toBeUndefined();
  });
});
