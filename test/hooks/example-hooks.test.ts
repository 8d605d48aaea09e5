import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hookEnvelopeSchema } from '../../src/host/hooks/envelope.js';
import { testHook, type HookTestOptions } from '../../src/hooks/test-hook.js';
import { makeTempDir, repoRoot } from '../support/cli.js';

const examples = path.join(repoRoot, 'workflows/hooks');
const sampleNames = ['rm-rf.json', 'shell-rm-rf.json', 'ls.json', 'after-tool-use.json'];

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await makeTempDir('rho-hooks-examples-')));
afterEach(() => cleanup());

function run(hook: string[], sample: string, extra: Partial<HookTestOptions> = {}) {
  return testHook({
    hook,
    eventFile: path.join(examples, 'samples', sample),
    hooksFile: undefined,
    cwd: dir,
    env: { PATH: process.env.PATH },
    timeoutMs: undefined,
    ...extra,
  });
}

describe('the example hooks in workflows/hooks', () => {
  it.each(sampleNames)('sample %s is a valid envelope', async (sample) => {
    const text = await readFile(path.join(examples, 'samples', sample), 'utf8');
    expect(hookEnvelopeSchema.safeParse(JSON.parse(text)).success).toBe(true);
  });

  it('block-rm-rf denies rm -rf run directly or inside a script, and lets other commands through', async () => {
    const gate = [process.execPath, path.join(examples, 'block-rm-rf.mjs')];
    expect(await run(gate, 'rm-rf.json')).toMatchObject({ role: 'gate', decision: 'deny', reason: expect.stringMatching(/rm -rf is not allowed/) });
    expect(await run(gate, 'shell-rm-rf.json')).toMatchObject({ decision: 'deny', reason: expect.stringMatching(/make clean && rm -fr build/) });
    expect(await run(gate, 'ls.json')).toMatchObject({ decision: 'continue', failure: null });
  });

  it('audit-log appends one line per event', async () => {
    const log = path.join(dir, 'logs/audit.log');
    const observer = [process.execPath, path.join(examples, 'audit-log.mjs'), log];
    expect(await run(observer, 'after-tool-use.json')).toMatchObject({ role: 'observer', delivered: true, failure: null });
    expect(await run(observer, 'after-tool-use.json')).toMatchObject({ delivered: true });
    const lines = (await readFile(log, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ kind: 'after_tool_use', run_id: 'run-20250101-0001', labels: { ci_job: '1234' }, tool: 'exec', capability: 'run ls -la' });
  });
});

describe('testHook with a hooks file', () => {
  it('runs an entry by name with its own settings', async () => {
    await writeFile(path.join(dir, 'hooks.toml'), `[[pre_tool_use]]\nname = "advisory"\ncommand = ["./missing-gate"]\non_error = "continue"\n`);
    const result = await run(['advisory'], 'rm-rf.json', { hooksFile: 'hooks.toml' });
    expect(result).toMatchObject({ role: 'gate', decision: 'continue', failure: expect.stringMatching(/could not start .*missing-gate/) });
  });

  it('names the hooks it has when the name is unknown', async () => {
    await writeFile(path.join(dir, 'hooks.toml'), `[[observer]]\ncommand = ["node", "audit.mjs"]\n`);
    await expect(run(['nope'], 'rm-rf.json', { hooksFile: 'hooks.toml' })).rejects.toThrow(/has no hook named "nope"; its hooks are: "node audit\.mjs"/);
  });
});
