import { describe, expect, it } from 'vitest';
import { builtOnce } from '../../src/host/built-once.js';
import { HostError } from '../../src/host/errors.js';

describe('builtOnce', () => {
  it('builds nothing until the first call, then gives every call the value it built', () => {
    let builds = 0;
    const value = builtOnce(() => ({ built: ++builds }));
    expect(builds).toBe(0);
    const first = value();
    expect(value()).toBe(first);
    expect(builds).toBe(1);
  });

  it('keeps a throw: every later call throws the same error without building again', () => {
    let builds = 0;
    const failing = builtOnce(() => {
      builds += 1;
      throw new HostError('invalid_tool', 'cannot build');
    });
    const thrown = [0, 1].map(() => {
      try {
        failing();
      } catch (error) {
        return error;
      }
      return undefined;
    });
    expect(thrown[0]).toBeInstanceOf(HostError);
    expect(thrown[1]).toBe(thrown[0]);
    expect(builds).toBe(1);
  });
});
