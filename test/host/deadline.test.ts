import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Deadline } from '../../src/host/deadline.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('Deadline', () => {
  it('expires once its limit has run, and not before', () => {
    const expired = vi.fn();
    const deadline = new Deadline(1000, expired);
    vi.advanceTimersByTime(999);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(expired).toHaveBeenCalledTimes(1);
    expect(deadline.expired).toBe(true);
  });

  it('does not count the time it is paused (a person answering a question)', () => {
    const expired = vi.fn();
    const deadline = new Deadline(1000, expired);
    vi.advanceTimersByTime(600);
    deadline.pause();
    vi.advanceTimersByTime(10_000);
    expect(expired).not.toHaveBeenCalled();
    deadline.resume();
    vi.advanceTimersByTime(399);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(expired).toHaveBeenCalledTimes(1);
  });

  it('keeps a limit longer than one timer holds, instead of firing at once', () => {
    const expired = vi.fn();
    const month = 30 * 24 * 60 * 60 * 1000;
    new Deadline(month, expired);
    vi.advanceTimersByTime(2 ** 31);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(month - 2 ** 31);
    expect(expired).toHaveBeenCalledTimes(1);
  });
});
