import { describe, expect, it } from 'vitest';
import { mountArguments } from '../../../src/tools/process/sandbox/bubblewrap/arguments.js';

describe('bubblewrap mount arguments', () => {
  it('mounts each path on itself, in order, writable or read-only, skipping a missing one only where asked', () => {
    expect(
      mountArguments([
        { path: '/w', writable: true, ifPresent: false },
        { path: '/w/dist', writable: true, ifPresent: true },
        { path: '/w/README', writable: false, ifPresent: true },
        { path: '/w/.git', writable: false, ifPresent: false },
      ]),
    ).toEqual(['--bind', '/w', '/w', '--bind-try', '/w/dist', '/w/dist', '--ro-bind-try', '/w/README', '/w/README', '--ro-bind', '/w/.git', '/w/.git']);
  });
});
