import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, temporaryDirectories, writeFiles } from '../support/cli.js';

// The suite runs where bubblewrap works: every step here is confined.
const temp = temporaryDirectories('rho-forged-test-');
afterAll(() => temp.removeAll());

/** A workspace with its own state and cache homes (inside it when `inside`, as CI often has them). */
async function setUp(files: Record<string, string>, inside = false): Promise<{ dir: string; env: Record<string, string> }> {
  const base = await temp.make();
  const dir = path.join(base, 'work');
  await writeFiles(dir, files);
  const homes = inside ? dir : base;
  return { dir, env: { XDG_STATE_HOME: path.join(homes, '.state'), XDG_CACHE_HOME: path.join(homes, '.cache') } };
}

/** The step_finished events of a run (--output json). */
function finished(stdout: string): Record<string, { status: string; reason?: string }> {
  const events = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { type: string; stepId: string; status: string; reason?: string });
  return Object.fromEntries(events.filter((event) => event.type === 'step_finished').map((event) => [event.stepId, { status: event.status, reason: event.reason }]));
}

/** The one up-to-date state file rho keeps for a workspace, under the state home of `env`. */
function stateFile(env: Record<string, string>): string {
  const workspaces = path.join(env.XDG_STATE_HOME!, 'rho', 'workspaces');
  const [only, ...others] = readdirSync(workspaces);
  expect(others).toEqual([]);
  return path.join(workspaces, only!, 'up-to-date.sealed');
}

/** The records of the state, whatever authenticates them: the JSON after the first line. */
async function stateRecords(file: string): Promise<Record<string, { arguments: string }>> {
  const text = await readFile(file, 'utf8');
  return (JSON.parse(text.slice(text.indexOf('\n') + 1)) as { steps: Record<string, { arguments: string }> }).steps;
}

describe('rho’s own state is rho’s (end to end)', () => {
  it('reads and writes the up-to-date state without any rule: the second run is up to date, not denied, and nothing lands in the workspace', async () => {
    const steps = ['one', 'two', 'three']
      .map(
        (id) =>
          `  - id: ${id}\n    tool: shell\n    with: { script: "mkdir -p out && cat src/${id}.txt > out/${id}.txt" }\n    sources: ["src/${id}.txt"]\n    generates: ["out/${id}.txt"]\n`,
      )
      .join('');
    const { dir, env } = await setUp({
      'flow.yml': `version: 1\nname: many\npolicy:\n  allow: ["read(src/**)", "read(out/**)", "write(out/**)", "shell"]\nsteps:\n${steps}`,
      'src/one.txt': '1\n',
      'src/two.txt': '2\n',
      'src/three.txt': '3\n',
    });
    const first = await runCli(['run', 'flow.yml', '--output', 'json'], { cwd: dir, env });
    expect(first.stdout + first.stderr).not.toMatch(/was denied|⛔/);
    expect(first.exitCode).toBe(0);
    expect(Object.values(finished(first.stdout)).map((step) => step.status)).toEqual(['success', 'success', 'success']);
    const second = await runCli(['run', 'flow.yml', '--output', 'json'], { cwd: dir, env });
    expect(second.exitCode).toBe(0);
    expect(Object.values(finished(second.stdout)).map((step) => step.status)).toEqual(['up_to_date', 'up_to_date', 'up_to_date']);
    expect(existsSync(path.join(dir, '.rho'))).toBe(false);
    const state = stateFile(env);
    expect(Object.keys(await stateRecords(state)).sort()).toEqual(['flow.yml#one', 'flow.yml#three', 'flow.yml#two']);
  });

  it('keeps a step that may write everywhere (.rho included, the state home too) from forging a failing test as up to date', async () => {
    // The forger finds every up-to-date state it can reach and records the changed source as
    // the test's last successful input, in place and by moving the directory aside.
    const forge = [
      'new=$(sha256sum src/code.txt | cut -d" " -f1)',
      'for f in $(find . -name "up-to-date*" 2>/dev/null); do sed -i -E "s/\\"src\\/code.txt\\":\\"[0-9a-f]+\\"/\\"src\\/code.txt\\":\\"$new\\"/" "$f"; done',
      'mv .state .state-aside 2>/dev/null && mkdir -p .state && cp -r .state-aside/. .state/ 2>/dev/null',
      'echo forged',
    ].join('; ');
    const flow = (script: string) => `version: 1
name: forge
policy:
  allow: ["shell", "read(**)", "write(**)"]
steps:
  - id: forge
    tool: shell
    with: { script: ${JSON.stringify(script)} }
  - id: test
    tool: shell
    needs: forge
    with: { script: "grep -q good src/code.txt" }
    sources: ["src/code.txt"]
`;
    const { dir, env } = await setUp({ 'flow.yml': flow('echo nothing yet'), 'src/code.txt': 'good\n' }, true);
    const passing = await runCli(['run', 'flow.yml', '--output', 'json'], { cwd: dir, env });
    expect(finished(passing.stdout).test?.status).toBe('success');
    await writeFile(path.join(dir, 'flow.yml'), flow(forge));
    await writeFile(path.join(dir, 'src/code.txt'), 'bad\n');
    const result = await runCli(['run', 'flow.yml', '--output', 'json'], { cwd: dir, env });
    expect(finished(result.stdout).forge?.status).toBe('success');
    expect(finished(result.stdout).test).toMatchObject({ status: 'failure' });
    expect(result.exitCode).toBe(1);
  });

  it('keeps a step whose writable root holds rho’s cache from forging its parse: the next run is confined and the plan shows the real policy', async () => {
    const flow = `version: 1
name: forged-parse
policy:
  sandbox: auto
  allow: ["shell", "write(**)"]
steps:
  - id: show
    tool: shell
    with: { script: 'echo "pid $$"; for f in $(find .cache -name "*.json" 2>/dev/null); do sed -i -e "s/\\"sandbox\\":\\"auto\\",\\"allow\\":\\[\\"shell\\",\\"write(\\*\\*)\\"\\]/\\"sandbox\\":\\"off\\",\\"allow\\":[\\"shell\\",\\"process\\",\\"write\\",\\"network\\",\\"read\\",\\"outside\\"]/" "$f" && echo "rewrote $f"; done; true' }
`;
    const { dir, env } = await setUp({ 'flow.yml': flow }, true);
    const first = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir, env });
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toMatch(/\[show\] pid [12]\n/);
    const second = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir, env });
    expect(second.exitCode).toBe(0);
    expect(second.stdout).toMatch(/\[show\] pid [12]\n/);
    expect(second.stdout).not.toMatch(/rewrote/);
    const plan = await runCli(['plan', 'flow.yml'], { cwd: dir, env });
    expect(plan.stdout).toMatch(/Sandbox auto: process steps run confined by/);
    expect(plan.stdout).toMatch(/allow: run sh script \(rule shell\)/);
  });

  it('hides every directory of rho’s own from a confined step that may write where they are: nothing to read, write or move aside', async () => {
    const { dir, env } = await setUp(
      {
        'flow.yml': `version: 1
name: snoop
policy:
  allow: ["shell", "read(**)", "write(**)"]
steps:
  - id: snoop
    tool: shell
    with: { script: 'echo "entries: $(ls -A .cache/rho .state/rho | grep -c -v -e ":$" -e "^$")"; cat .cache/rho/sandbox-probe .state/rho/key 2>/dev/null; { echo planted > .cache/rho/sandbox-probe; } 2>/dev/null || echo "cannot write"; mv .cache .cache-aside 2>/dev/null || echo "cannot move .cache"; mv .state/rho .state/aside 2>/dev/null || echo "cannot move .state/rho"; true' }
  - id: read_key
    tool: read_file
    with: { path: .state/rho/key }
    continue_on_error: true
  - id: list_cache
    tool: list_files
    with: { path: .cache, glob: "**" }
  - id: keep_listing
    tool: write_file
    with: { path: listing.txt, content: "\${{ steps.list_cache.output }}" }
`,
        '.cache/mine.txt': 'a cache of the project’s own\n',
      },
      true,
    );
    // The first run leaves the key, a parse and the probe's memory behind.
    expect((await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir, env })).exitCode).toBe(0);
    const seen = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir, env });
    expect(seen.exitCode).toBe(0);
    const lines = seen.stdout.split('\n').filter((line) => line.startsWith('[snoop] ') && !/[▶✔]/.test(line));
    expect(lines).toEqual(['[snoop] entries: 0', '[snoop] cannot write', '[snoop] cannot move .cache', '[snoop] cannot move .state/rho']);
    // The file tools refuse them whatever the rules, and walks pass them by.
    expect(seen.stdout).toMatch(/\[read_key\] ✖ failure.*lies in a directory of rho's own/);
    const listing = await readFile(path.join(dir, 'listing.txt'), 'utf8');
    expect(listing).toContain('mine.txt');
    expect(listing).not.toMatch(/rho|sandbox-probe|workflows|compile-cache/);
    expect(await readFile(path.join(dir, '.cache/rho/sandbox-probe'), 'utf8')).not.toContain('planted');
    expect(existsSync(path.join(dir, '.cache-aside'))).toBe(false);
  });

  it('keys the digests of a step’s arguments: a 4-digit secret in content: cannot be recovered from the state by guessing', async () => {
    const { dir, env } = await setUp({
      'flow.yml': `version: 1
name: pin
secrets: [PIN]
policy:
  allow: ["read(flow.yml)", "read(out/**)", "write(out/**)", "read(.rho/**)", "write(.rho/**)"]
steps:
  - id: store
    tool: write_file
    with: { path: out/pin.txt, content: "\${{ secrets.PIN }}", create_dirs: true }
    sources: ["flow.yml"]
    generates: ["out/pin.txt"]
`,
    });
    const secretEnv = { ...env, PIN: '4821' };
    expect((await runCli(['run', 'flow.yml', '--output', 'json'], { cwd: dir, env: secretEnv })).exitCode).toBe(0);
    const again = await runCli(['run', 'flow.yml', '--output', 'json'], { cwd: dir, env: secretEnv });
    expect(finished(again.stdout).store?.status).toBe('up_to_date');
    const legacy = path.join(dir, '.rho/up-to-date.json');
    const records = existsSync(legacy)
      ? (JSON.parse(await readFile(legacy, 'utf8')) as { steps: Record<string, { arguments: string }> }).steps
      : await stateRecords(stateFile(env));
    const recorded = records['flow.yml#store']!.arguments;
    const guessed = Array.from({ length: 10_000 }, (_, n) => String(n).padStart(4, '0')).find(
      (pin) =>
        createHash('sha256')
          .update(JSON.stringify({ content: pin, create_dirs: true, path: 'out/pin.txt' }))
          .digest('hex') === recorded,
    );
    expect(guessed).toBeUndefined();
    expect(await readFile(path.join(dir, 'out/pin.txt'), 'utf8')).toBe('4821');
  });
});
