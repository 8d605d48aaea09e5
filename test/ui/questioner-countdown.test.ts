import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Countdown } from '../../src/ui/questioner/countdown.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function countdown(seconds: number) {
  const events = { tick: vi.fn(), expire: vi.fn() };
  return { events, timer: new Countdown(seconds, events, () => Date.now()) };
}

describe('Countdown', () => {
  it('ticks every second and expires once when nobody stops it', () => {
    const { events, timer } = countdown(3);
    expect(timer.remainingSeconds()).toBe(3);
    vi.advanceTimersByTime(1000);
    expect(timer.remainingSeconds()).toBe(2);
    expect(events.tick).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(2000);
    expect(events.expire).toHaveBeenCalledTimes(1);
    expect(timer.expired).toBe(true);
    expect(timer.running).toBe(false);
    vi.advanceTimersByTime(5000);
    expect(events.expire).toHaveBeenCalledTimes(1);
    expect(events.tick).toHaveBeenCalledTimes(2);
  });

  it('stops for good: once stopped it neither ticks nor expires, however long it waits', () => {
    const { events, timer } = countdown(2);
    vi.advanceTimersByTime(500);
    timer.stop();
    vi.advanceTimersByTime(60_000);
    expect(events.expire).not.toHaveBeenCalled();
    expect(events.tick).not.toHaveBeenCalled();
    expect(timer.expired).toBe(false);
    expect(timer.running).toBe(false);
  });

  it('cannot be stopped after it expired (the fallback stands)', () => {
    const { timer } = countdown(1);
    vi.advanceTimersByTime(1000);
    timer.stop();
    expect(timer.expired).toBe(true);
  });
});
