import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { readHooksFile, parseInlineHooks } from '../../src/hooks/load-config.js';
import { loadHooks } from '../../src/hooks/load-hooks.js';
import { sampleGateInput } from '../../src/host/hooks/testing.js';
import { fixture } from './harness.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'rho-hooks-config-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const toml = `
[[pre_tool_use]]
name = "guard"
command = ["./guard.mjs", "--strict"]
tools = ["exec", "shell"]
timeout_ms = 5000

[[pre_tool_use]]
command = ["node", "advisory.mjs"]
on_error = "continue"

[[observer]]
command = ["node", "audit.mjs"]
events = ["session_started", "after_tool_use", "run_completed", "run_failed"]

[limits]
field_bytes = 4096
drain_timeout_ms = 1000
`;

const yaml = `
pre_tool_use:
  - name: guard
    command: [./guard.mjs, --strict]
    tools: [exec, shell]
    timeout_ms: 5000
  - command: [node, advisory.mjs]
    on_error: continue
observer:
  - command: [node, audit.mjs]
    events: [session_started, after_tool_use, run_completed, run_failed]
limits:
  field_bytes: 4096
  drain_timeout_ms: 1000
`;

describe('hooks configuration', () => {
  it('reads the TOML file and the workflow hooks: key into the same structure, with defaults', async () => {
    await writeFile(path.join(dir, 'hooks.toml'), toml);
    const fromFile = await readHooksFile('hooks.toml', dir);
    const inline = parseInlineHooks(parseYaml(yaml), dir);
    expect(fromFile.config).toEqual(inline.config);
    expect(fromFile.baseDir).toBe(dir);
    expect(fromFile.config.pre_tool_use[1]).toEqual({ command: ['node', 'advisory.mjs'], on_error: 'continue', timeout_ms: 10_000, writes: [] });
    expect(fromFile.config.pre_tool_use[0]).toMatchObject({ on_error: 'deny', timeout_ms: 5000 });
  });

  it.each([
    ['an unknown key', '[[pre_tool_use]]\ncommand = ["x"]\ncomand = ["y"]\n', /pre_tool_use\[0\]\.comand: Unrecognized key/],
    ['shell text instead of argv', '[[pre_tool_use]]\ncommand = "rm -rf /"\n', /pre_tool_use\[0\]\.command/],
    ['an unknown on_error', '[[pre_tool_use]]\ncommand = ["x"]\non_error = "allow"\n', /pre_tool_use\[0\]\.on_error/],
    ['before_tool_use for an observer', '[[observer]]\ncommand = ["x"]\nevents = ["before_tool_use"]\n', /before_tool_use goes only to \[\[pre_tool_use\]\] gates/],
    ['a field bound too small', '[limits]\nfield_bytes = 10\n', /limits\.field_bytes/],
    ['invalid TOML', '[[pre_tool_use]\ncommand = ["x"]\n', /^hooks\.toml:1:\d+: invalid TOML/],
  ])('refuses %s with a message naming the field', async (_, text, message) => {
    await writeFile(path.join(dir, 'hooks.toml'), text);
    await expect(readHooksFile('hooks.toml', dir)).rejects.toThrow(message);
  });

  it('says when the hooks file cannot be read', async () => {
    await expect(readHooksFile('missing.toml', dir)).rejects.toThrow(/hooks file missing\.toml cannot be read \(ENOENT\); check the --hooks path/);
  });
});

describe('loadHooks', () => {
  it('combines the hooks file and the workflow key, applying limits and labels', async () => {
    await writeFile(
      path.join(dir, 'hooks.toml'),
      `[[pre_tool_use]]\nname = "file-gate"\ncommand = ${JSON.stringify(fixture('deny.mjs', 'from the file'))}\n[limits]\nfield_bytes = 1024\n`,
    );
    const hooks = await loadHooks({
      file: 'hooks.toml',
      inline: { pre_tool_use: [{ name: 'inline-gate', command: fixture('continue.mjs') }] },
      cwd: dir,
      env: { PATH: process.env.PATH },
      labels: { ci_job: '77' },
      runId: 'run-9',
    });
    expect(hooks.gates.map((gate) => gate.name)).toEqual(['inline-gate', 'file-gate']);
    expect(hooks.context).toMatchObject({ runId: 'run-9', sessionId: 'run-9', delegation: { role: 'root' }, hostLabels: { ci_job: '77' } });
    expect(hooks.context.bounds).toEqual({ fieldBytes: 1024, envelopeBytes: 64 * 1024 });
    // Gates and observers of one run write their envelopes with one context.
    expect(hooks.observer.context).toBe(hooks.context);
    const answers = await Promise.all(hooks.gates.map((gate) => gate.evaluate(sampleGateInput(), new AbortController().signal)));
    expect(answers).toEqual([{ decision: 'continue' }, { decision: 'deny', reason: 'from the file' }]);
  });

  it('names hooks by their command when unnamed, keeping names unique', async () => {
    const hooks = await loadHooks({
      inline: { pre_tool_use: [{ command: ['node', 'a.mjs'] }, { command: ['node', 'a.mjs'] }], observer: [{ command: ['node', 'b.mjs'] }] },
      cwd: dir,
      env: {},
      labels: {},
      runId: 'run-1',
    });
    expect(hooks.summary().hooks.map((entry) => `${entry.role}:${entry.name}`)).toEqual(['gate:node a.mjs', 'gate:node a.mjs #2', 'observer:node b.mjs']);
  });

  it('needs nothing when no hooks are configured', async () => {
    const hooks = await loadHooks({ cwd: dir, env: {}, labels: {}, runId: 'run-1' });
    expect(hooks.gates).toEqual([]);
    hooks.notify({ kind: 'step_started', stepId: 'a', tool: 'echo' });
    expect(await hooks.finish()).toEqual({ timedOut: false, observers: [] });
  });

  it('refuses a bad label before the run', async () => {
    await expect(loadHooks({ cwd: dir, env: {}, labels: { 'bad key': 'x' }, runId: 'run-1' })).rejects.toThrow(/host label key "bad key" is invalid/);
  });
});
