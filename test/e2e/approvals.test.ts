import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliPath, makeTempDir, runCli, writeFiles } from '../support/cli.js';

/** Approvals where nobody watches: CI=true, stdin not a terminal. */
let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('rho-approvals-e2e-'));
  await writeFiles(dir, {
    'greet.mjs': `console.log('hello ' + process.argv.slice(2).join(' '));\n`,
    'first.mjs': `console.log('hello first');\n`,
    'flow.yml': `version: 1
name: approvals
policy:
  allow: ["process(node first.mjs)"]
  ask: ["process(node greet.mjs)"]
steps:
  - id: first
    tool: exec
    with: { command: node, args: [first.mjs] }
  - id: greet
    tool: exec
    with: { command: node, args: [greet.mjs, "it's ok", "CANARY-argument"], env: { GREETING_MODE: "CANARY-env-value" } }
`,
  });
});
afterEach(() => cleanup());

/** The `--approve '...'` flag a denial message suggests, exactly as printed. */
function suggestedFlag(output: string): string {
  const match = /run again with (--approve '(?:[^']|'\\'')*')/.exec(output);
  if (!match) throw new Error(`no --approve suggestion in:\n${output}`);
  return match[1]!;
}

describe('approvals in CI', () => {
  it('denies an unanswered request at once (exit 3) without reading stdin, naming the step and a working --approve rule', async () => {
    const started = Date.now();
    const child = execa('node', [cliPath, 'run', 'flow.yml'], { cwd: dir, env: { CI: 'true', NO_COLOR: '1' }, reject: false, stdin: 'pipe', timeout: 30_000 });
    const denied = await child;
    expect(denied.exitCode).toBe(3);
    expect(Date.now() - started).toBeLessThan(25_000);
    expect(denied.stdout).toContain('[first] hello first');
    expect(denied.stdout).toContain(
      `step greet: process request "run node greet.mjs "it's ok" CANARY-argument" needs approval (the rule ask: process(node greet.mjs) matches) and nobody can answer here`,
    );
    const flag = suggestedFlag(denied.stdout);
    expect(flag).toBe(`--approve 'process(node greet.mjs "it'\\''s ok" CANARY-argument)'`);

    // Pasted into a real shell, the suggested flag answers the request and the run succeeds.
    const rerun = await execa('sh', ['-c', `node "$RHO_CLI" run flow.yml ${flag}`], {
      cwd: dir,
      env: { CI: 'true', NO_COLOR: '1', RHO_CLI: cliPath },
      reject: false,
      stdin: 'ignore',
      timeout: 30_000,
    });
    expect(rerun.exitCode).toBe(0);
    expect(rerun.stdout).toContain(`[greet] hello it's ok CANARY-argument`);
    expect(rerun.stdout).toContain(`[greet] approved by ${flag}: process request`);
  });

  it('--no-input denies the same way even without CI=true', async () => {
    const result = await runCli(['run', 'flow.yml', '--no-input'], { cwd: dir, env: { CI: '' } });
    expect(result.exitCode).toBe(3);
    expect(result.stdout).toContain(`--approve 'process(node greet.mjs "it'\\''s ok" CANARY-argument)'`);
  });

  it('--yes answers every approval request and echoes each decision', async () => {
    const result = await runCli(['run', 'flow.yml', '--yes'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/\[greet\] approved by --yes: process request "run node greet\.mjs .*" \(allow once\)/);
    expect(result.stdout).not.toMatch(/\[first\] approved by/);
  });

  it('an --approve rule that does not match leaves the request unanswered', async () => {
    const result = await runCli(['run', 'flow.yml', '--approve', 'process(node other.mjs)'], { cwd: dir });
    expect(result.exitCode).toBe(3);
    expect(result.stdout).not.toContain('approved by');
  });

  it('--yes never turns a policy deny into an allow', async () => {
    const result = await runCli(['run', 'flow.yml', '--yes', '--deny', 'process(node greet.mjs)'], { cwd: dir });
    expect(result.exitCode).toBe(3);
    expect(result.stdout).toContain(`step greet: process request "run node greet.mjs "it's ok" CANARY-argument" was denied by policy: the rule deny: process(node greet.mjs) matches`);
  });

  it('records approval decisions in --events with class, result and decider, never the command, args or env', async () => {
    const events = path.join(dir, 'events.ndjson');
    const result = await runCli(['run', 'flow.yml', '--approve', 'process(node greet.mjs)', '--events', events], { cwd: dir });
    expect(result.exitCode).toBe(0);
    const lines = (await readFile(events, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const decisions = lines.filter((line) => String(line.type).startsWith('approval_'));
    expect(decisions.map(({ stepId, class: kind, result: outcome, decider }) => ({ stepId, kind, outcome, decider }))).toEqual([
      { stepId: 'first', kind: 'process', outcome: 'allow', decider: 'policy' },
      { stepId: 'greet', kind: 'process', outcome: 'allow', decider: 'flag' },
    ]);
    for (const decision of decisions) expect(Object.keys(decision).sort()).toEqual(['class', 'decider', 'request', 'result', 'run_id', 'seq', 'stepId', 'time', 'type', 'v']);
    expect(JSON.stringify(decisions)).not.toMatch(/CANARY|greet\.mjs|GREETING_MODE/);
  });
});
