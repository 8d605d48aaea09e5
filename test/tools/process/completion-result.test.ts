import { describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/host/errors.js';
import { completionOutput } from '../../../src/tools/process/completion-result.js';
import type { ProcessOutcome } from '../../../src/tools/process/run-to-completion.js';

const refusal = new ToolError(
  'approval_denied',
  'step fetch: network request "CONNECT tunnel://example.org:443" needs approval; run again with --approve \'network(example.org:443)\'',
  {
    details: { class: 'network', rule: 'network(example.org:443)' },
  },
);

function outcome(exitCode: number | null, networkRefusal?: ToolError): ProcessOutcome {
  return {
    exitCode,
    signal: exitCode === null ? 'SIGTERM' : null,
    termination: 'exited',
    stdout: 'out',
    stderr: 'curl: (56) CONNECT tunnel failed',
    truncated: false,
    undoneWrites: [],
    ...(networkRefusal && { networkRefusal }),
  };
}

function failure(run: () => unknown): ToolError {
  try {
    run();
  } catch (error) {
    return error as ToolError;
  }
  throw new Error('expected a failure');
}

describe('the result of a process the network proxy refused a host', () => {
  it('is the denial when the program then fails, exited or killed, with the program’s data kept', () => {
    for (const code of [1, null]) {
      const error = failure(() => completionOutput('curl', outcome(code, refusal), [0], 1000, '/work'));
      expect(error.kind).toBe('approval_denied');
      expect(error.message).toMatch(
        /^curl (exited with code 1|was killed by SIGTERM) after rho's network proxy refused it a connection: step fetch: .*--approve 'network\(example\.org:443\)'$/,
      );
      expect(error.details).toMatchObject({ exit_code: code, stdout: 'out', rule: 'network(example.org:443)' });
      expect(error.cause).toBe(refusal);
    }
  });

  it('is a success when the program did without the host, and a plain failure without a refusal', () => {
    expect(completionOutput('curl', outcome(0, refusal), [0], 1000, '/work')).toMatchObject({ text: 'out' });
    expect(failure(() => completionOutput('curl', outcome(1), [0], 1000, '/work'))).toMatchObject({
      kind: 'execution_failed',
      message: expect.stringContaining('curl exited with code 1 (expected 0)'),
    });
  });
});
