import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cliPath, makeTempDir, runCli, writeFiles } from '../support/cli.js';

/** Approvals where nobody watches: CI=true, stdin not a terminal. */
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** A workspace with one step the policy allows and one that needs approval. */
async function workspace(): Promise<string> {
  const { dir, cleanup } = await makeTempDir('rho-approvals-e2e-');
  cleanups.push(cleanup);
  await writeFiles(dir, {
    'greet.mjs': `console.log('hello ' + process.argv.slice(2).join(' '));\n`,
    'first.mjs': `console.log('hello first');\n`,
    'flow.yml': `version: 1
name: approvals
policy:
  env: [GREETING_MODE]
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
  return dir;
}

/** The `--approve '...'` flag a denial message suggests, exactly as printed. */
function suggestedFlag(output: string): string {
  const match = /run again with (--approve '(?:[^']|'\\'')*')/.exec(output);
  if (!match) throw new Error(`no --approve suggestion in:\n${output}`);
  return match[1]!;
}

describe.concurrent('approvals in CI', { timeout: 120_000 }, () => {
  it('denies an unanswered request at once (exit 3) without reading stdin, naming the step and a working --approve rule', async () => {
    const dir = await workspace();
    // stdin stays open and is never written: a CLI that waited for it would hang until the timeout.
    const denied = await execa('node', [cliPath, 'run', 'flow.yml'], { cwd: dir, env: { CI: 'true', NO_COLOR: '1' }, reject: false, stdin: 'pipe', timeout: 60_000 });
    expect(denied.timedOut).toBe(false);
    expect(denied.exitCode).toBe(3);
    expect(denied.stdout).toContain('[first] hello first');
    expect(denied.stdout).toContain(
      `step greet: process request "run node greet.mjs "it's ok" CANARY-argument" needs approval (the rule ask: process(node greet.mjs) matches) and nobody can answer here`,
    );
    const flag = suggestedFlag(denied.stdout);
    expect(flag).toBe(`--approve 'process(GREETING_MODE=* node greet.mjs "it'\\''s ok" CANARY-argument)'`);

    // Pasted into a real shell, the suggested flag answers the request and the run succeeds.
    const rerun = await execa('sh', ['-c', `node "$RHO_CLI" run flow.yml ${flag}`], {
      cwd: dir,
      env: { CI: 'true', NO_COLOR: '1', RHO_CLI: cliPath },
      reject: false,
      stdin: 'ignore',
      timeout: 60_000,
    });
    expect(rerun.exitCode).toBe(0);
    expect(rerun.stdout).toContain(`[greet] hello it's ok CANARY-argument`);
    expect(rerun.stdout).toContain(`[greet] approved by ${flag}: process request`);
  });

  it('--no-input denies the same way without CI=true, and an --approve rule that does not match answers nothing', async () => {
    const result = await runCli(['run', 'flow.yml', '--no-input', '--approve', 'process(node other.mjs)'], { cwd: await workspace(), env: { CI: '' }, timeoutMs: 60_000 });
    expect(result.exitCode).toBe(3);
    expect(result.stdout).toContain(`--approve 'process(GREETING_MODE=* node greet.mjs "it'\\''s ok" CANARY-argument)'`);
    expect(result.stdout).not.toContain('approved by');
  });

  it('--yes answers every approval request and echoes each decision', async () => {
    const result = await runCli(['run', 'flow.yml', '--yes'], { cwd: await workspace(), timeoutMs: 60_000 });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/\[greet\] approved by --yes: process request "run node greet\.mjs .*" \(allow once\)/);
    expect(result.stdout).not.toMatch(/\[first\] approved by/);
  });

  it('--yes never turns a policy deny into an allow', async () => {
    const result = await runCli(['run', 'flow.yml', '--yes', '--deny', 'process(node greet.mjs)'], { cwd: await workspace(), timeoutMs: 60_000 });
    expect(result.exitCode).toBe(3);
    expect(result.stdout).toContain(
      `step greet: process request "run node greet.mjs "it's ok" CANARY-argument" was denied by policy: the rule deny: process(node greet.mjs) matches`,
    );
  });

  it('records approval decisions in --events with class, result and decider, never the command, args or env', async () => {
    const dir = await workspace();
    const events = path.join(dir, 'events.ndjson');
    const result = await runCli(['run', 'flow.yml', '--approve', 'process(node greet.mjs)', '--events', events], { cwd: dir, timeoutMs: 60_000 });
    expect(result.exitCode).toBe(0);
    const lines = (await readFile(events, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const decisions = lines.filter((line) => String(line.type).startsWith('approval_'));
    expect(decisions.map(({ stepId, class: kind, result: outcome, decider }) => ({ stepId, kind, outcome, decider }))).toEqual([
      { stepId: 'first', kind: 'process', outcome: 'allow', decider: 'policy' },
      { stepId: 'greet', kind: 'process', outcome: 'allow', decider: 'flag' },
    ]);
    for (const decision of decisions) expect(Object.keys(decision).sort()).toEqual(['class', 'decider', 'request', 'result', 'run_id', 'seq', 'stepId', 'time', 'type', 'v']);
    expect(JSON.stringify(decisions)).not.toMatch(/CANARY|greet\.mjs|GREETING_MODE/);
  });
});
