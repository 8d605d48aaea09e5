import { PassThrough, Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src/host/approval.js';
import type { ScriptedDecision } from '../../src/host/authorization.js';
import type { CapabilityRequest } from '../../src/host/capability.js';
import { ToolError } from '../../src/host/errors.js';
import { approvalHeader, createApprovals, formatScriptedDecision, InteractiveApprover, printable } from '../../src/ui/approver/index.js';
import { createPromptLock, type PromptTerminal } from '../../src/ui/questioner/index.js';
import { makeSandbox, networkRequest, processRequest, readRequest, shellRequest, writeRequest, type Sandbox } from '../host/approval-fixtures.js';

let box: Sandbox;
beforeAll(async () => {
  box = await makeSandbox();
});
afterAll(() => box.cleanup());

const approvalOf = (request: CapabilityRequest, askedBy?: string): ApprovalRequest => ({
  seq: 1,
  callId: 'call-1',
  stepId: 'publish',
  tool: 'exec',
  source: 'built-in',
  request,
  askedBy,
  rememberable: true,
});

/** A terminal whose keys a test types and whose screen it reads. */
function fakeTerminal(): PromptTerminal & { type(keys: string): void; screen(): string } {
  const input = Object.assign(new PassThrough(), { isTTY: true, isRaw: false, setRawMode: () => input });
  let written = '';
  const output = Object.assign(
    new Writable({
      write(chunk, _encoding, done) {
        written += String(chunk);
        done();
      },
    }),
    { columns: 120, rows: 40 },
  );
  return {
    input: input as unknown as NodeJS.ReadStream,
    output: output as unknown as NodeJS.WriteStream,
    lock: createPromptLock(),
    type: (keys) => input.write(keys),
    screen: () => written,
  };
}

async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > 5000) throw new Error('timed out waiting for the prompt');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const keys = { enter: '\r', down: '\u001b[B', escape: '\u001b', ctrlC: '\u0003' };

describe('the approval prompt layout', () => {
  it('shows a process request with how the program was found, argv, cwd, env mode, limits and shell or direct', () => {
    const header = approvalHeader(
      approvalOf(processRequest({ env: { NODE_ENV: 'production', NODE_OPTIONS: '--max-old-space-size=4096' }, wallLimitMs: 120_000 }), 'process(npm publish)'),
    );
    expect(header.split('\n')).toEqual([
      'Approval needed (step publish, tool exec): process request',
      '  run npm publish --tag next',
      '    program      /usr/bin/npm (found on PATH as npm)',
      '    arguments    publish --tag next',
      '    directory    /w',
      '    environment  inherits the allowlisted host variables (PATH, HOME, locale, terminal, CI, toolchains); sets NODE_ENV="production" NODE_OPTIONS="--max-old-space-size=4096" (changes what runs)',
      '    timeout      2m',
      '    output       at most 1 MiB',
      '    runs         directly, no shell',
      '    asked by     the rule ask: process(npm publish)',
      `    next time    --approve 'process(NODE_OPTIONS=* npm publish --tag next)'`,
    ]);
  });

  it('shows a shell script, its shell, and the environment mode', () => {
    const header = approvalHeader(approvalOf(shellRequest({ script: 'set -e\nmake', envMode: { mode: 'inherit_only', names: ['HOME'] } })));
    expect(header).toContain('    script       set -e\n                 make\n');
    expect(header).toContain('environment  inherits only HOME');
    expect(header).toContain('runs         as a sh script (a shell can run anything)');
    expect(header).toContain(`next time    --approve shell`);
  });

  it('shows paths with their scope, a symlink as written, and what a write does', async () => {
    const link = approvalHeader(approvalOf(await readRequest(box.workspace, 'docs/env-link')));
    expect(link).toContain('path        .env');
    expect(link).toContain('written as  docs/env-link');
    expect(link).toContain('where       inside the workspace');
    expect(link).toContain('reads       one file');
    const fresh = approvalHeader(approvalOf(await writeRequest(box.workspace, 'dist/app.js')));
    expect(fresh).toContain('writes     a new file');
    expect(fresh).toContain(`--approve 'write(dist/app.js)'`);
    const network = approvalHeader(approvalOf(networkRequest('https://Example.org:8443/api?token=abc', 'POST')));
    expect(network).toContain('method     POST');
    expect(network).toContain('url        https://example.org:8443/api');
    expect(network).not.toContain('token=abc');
  });

  it('cannot be repainted by control characters or bidi overrides in a request', () => {
    const hostile = processRequest({ argv: ['\u001b[2J\u001b[Hall good', 'a\u202eb', 'line\nbreak'] });
    const header = approvalHeader(approvalOf(hostile));
    expect(header).not.toMatch(/[\u001b\u202e]/);
    expect(header).toContain('arguments    "\\u001b[2J\\u001b[Hall good" "a\\u{202e}b" "line\\nbreak"');
    expect(printable('tab\there\u001b[31m')).toBe('tab\\there\\e[31m');
  });
});

describe('the interactive approver', () => {
  it.each([
    ['Enter', [keys.enter], 'allow_once'],
    ['Down, Enter', [keys.down, keys.enter], 'allow_run'],
    ['Down, Down, Enter', [keys.down, keys.down, keys.enter], 'deny'],
    ['Escape', [keys.escape], 'deny'],
  ])('answers %s with %s', async (_, typed, answer) => {
    const terminal = fakeTerminal();
    const approver = new InteractiveApprover({ terminal, onInterrupt: () => {} });
    const answered = approver.approve(approvalOf(processRequest()), new AbortController().signal);
    await until(() => terminal.screen().includes('Allow for this run'));
    expect(terminal.screen()).toContain('program      /usr/bin/npm (found on PATH as npm)');
    for (const key of typed) terminal.type(key);
    expect(await answered).toBe(answer);
  });

  it('turns Ctrl-C into an interrupt of the run', async () => {
    const terminal = fakeTerminal();
    let interrupted = 0;
    const approver = new InteractiveApprover({ terminal, onInterrupt: () => interrupted++ });
    const answered = approver.approve(approvalOf(processRequest()), new AbortController().signal);
    await until(() => terminal.screen().includes('Deny'));
    terminal.type(keys.ctrlC);
    const error = await answered.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).kind).toBe('interrupted');
    expect(interrupted).toBe(1);
  });

  it('closes its prompt when the request is cancelled, freeing the terminal for the next one', async () => {
    const terminal = fakeTerminal();
    const approver = new InteractiveApprover({ terminal, onInterrupt: () => {} });
    const controller = new AbortController();
    const first = approver.approve(approvalOf(processRequest({ argv: ['first'] })), controller.signal);
    const second = approver.approve(approvalOf(processRequest({ argv: ['second'] })), new AbortController().signal);
    await until(() => terminal.screen().includes('run npm first'));
    expect(terminal.screen()).not.toContain('run npm second');
    controller.abort();
    expect(await first).toBe('deny');
    await until(() => terminal.screen().includes('run npm second'));
    terminal.type(keys.enter);
    expect(await second).toBe('allow_once');
  });

  it('masks secrets in what it shows', async () => {
    const terminal = fakeTerminal();
    const approver = new InteractiveApprover({ terminal, onInterrupt: () => {}, mask: (text) => text.replaceAll('s3cr3t-value', '***') });
    const answered = approver.approve(approvalOf(processRequest({ argv: ['--token', 's3cr3t-value'] })), new AbortController().signal);
    await until(() => terminal.screen().includes('Deny'));
    terminal.type(keys.enter);
    await answered;
    expect(terminal.screen()).toContain('--token ***');
    expect(terminal.screen()).not.toContain('s3cr3t-value');
  });
});

describe('createApprovals', () => {
  const decision = (answeredBy: ScriptedDecision['answeredBy']): ScriptedDecision => ({
    callId: 'c',
    stepId: 'publish',
    tool: 'exec',
    source: 'built-in',
    request: processRequest(),
    answeredBy,
  });

  it('has no approver when nobody can answer, so the host denies at once', () => {
    expect(createApprovals({ interactive: false, onInterrupt: () => {}, echo: () => {} }).approver).toBeUndefined();
    expect(createApprovals({ interactive: true, terminal: fakeTerminal(), onInterrupt: () => {}, echo: () => {} }).approver).toBeInstanceOf(InteractiveApprover);
  });

  it('echoes every scripted decision with the flag that made it', () => {
    const lines: string[] = [];
    const { onScriptedDecision } = createApprovals({ interactive: false, onInterrupt: () => {}, echo: (stepId, line) => lines.push(`[${stepId}] ${line}`) });
    onScriptedDecision(decision({ flag: 'approve', rule: 'process(npm publish)' }));
    onScriptedDecision(decision({ flag: 'yes' }));
    expect(lines).toEqual([
      `[publish] approved by --approve 'process(npm publish)': process request "run npm publish --tag next" (allow once)`,
      `[publish] approved by --yes: process request "run npm publish --tag next" (allow once)`,
    ]);
    expect(formatScriptedDecision(decision({ flag: 'approve', rule: "read(it's)" }))).toContain(`--approve 'read(it'\\''s)'`);
  });
});
