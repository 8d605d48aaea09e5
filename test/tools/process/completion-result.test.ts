import { describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/host/errors.js';
import { checkToolOutput } from '../../../src/host/output-contract.js';
import { execTool } from '../../../src/tools/exec.js';
import { shellTool } from '../../../src/tools/shell.js';
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

describe('what a process tool returns', () => {
  // The host does not check a built-in tool's output on every call: these outputs are what keeps it to its contract.
  it('matches the output contract and the data schema exec and shell declare, however the process ended', () => {
    const succeeded: ProcessOutcome[] = [outcome(0), { ...outcome(3), truncated: true }, { ...outcome(0), stdout: '', stderr: '' }];
    const failed: ProcessOutcome[] = [outcome(1), outcome(null), { ...outcome(null), termination: 'timed_out' }, { ...outcome(null), termination: 'cancelled' }];
    for (const tool of [execTool, shellTool]) {
      for (const ended of succeeded) {
        const output = completionOutput('program', ended, [0, 3], 1000, '/work');
        expect(checkToolOutput(tool, output)).toBe(output);
      }
      for (const ended of failed) {
        const { output } = failure(() => completionOutput('program', ended, [0], 1000, '/work'));
        expect(output).toBeDefined();
        expect(checkToolOutput(tool, output)).toBe(output);
      }
    }
  });
});
