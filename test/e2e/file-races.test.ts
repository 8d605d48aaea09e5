import { mkdir, readdir, readFile, rename, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, runCli } from '../support/cli.js';

/**
 * The race an attacker on the same machine runs: while a many-step file workflow works at
 * -j 4, a loop keeps swapping the directory it writes into for a symlink to a directory
 * outside the workspace. Whatever each step reports, nothing may land outside, no secret
 * outside may be read, and no temporary file may be left anywhere.
 */
let base: string;
let cleanup: () => Promise<void>;
const steps = 240;
const secret = 'TOP-SECRET-OUTSIDE';

beforeEach(async () => {
  ({ dir: base, cleanup } = await makeTempDir());
  await mkdir(path.join(base, 'ws', 'd'), { recursive: true });
  await mkdir(path.join(base, 'outside'));
  await writeFile(path.join(base, 'outside', 'secret.txt'), `${secret}\n`);
  await writeFile(path.join(base, 'ws', 'd', 'secret.txt'), 'inside\n');
  await writeFile(path.join(base, 'ws', 'd', 'edit.txt'), 'counter\n');
});

afterEach(() => cleanup());

/** Step N of the workflow: new files, new directories, overwrites, appends, edits and reads, all under d/. */
function step(n: number): string {
  const kinds = [
    `tool: write_file\n    with: { path: d/new-${n}.txt, content: "step ${n}" }`,
    `tool: write_file\n    with: { path: d/dir-${n}/deep/f.txt, content: "step ${n}", create_dirs: true }`,
    `tool: write_file\n    with: { path: d/shared.txt, content: "step ${n}" }`,
    `tool: write_file\n    with: { path: d/log.txt, content: "step ${n}\\n", mode: append }`,
    `tool: edit_file\n    with: { path: d/edit.txt, edits: [{ old: "counter", new: "counter" }] }`,
    `tool: read_file\n    with: { path: d/secret.txt }`,
  ];
  return `  - id: s${n}\n    continue_on_error: true\n    ${kinds[n % kinds.length]}`;
}

/** Every name under `dir`, recursively, relative to it. */
async function tree(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map(String).sort();
}

describe('file races (end to end)', () => {
  it('a directory swapped for a symlink out, in a loop, never lets a write or a read leave the workspace', async () => {
    const ws = path.join(base, 'ws');
    await writeFile(
      path.join(ws, 'flow.yml'),
      `version: 1\nname: race\npolicy:\n  allow: ["write(**)", "read(**)"]\nsteps:\n${Array.from({ length: steps }, (_, n) => step(n)).join('\n')}\n`,
    );
    const real = path.join(ws, 'd');
    let running = true;
    let swaps = 0;
    // Each round moves d aside under a new name, plants the link, then puts d back; a step with
    // create_dirs may make a fresh d meanwhile, so every move tolerates what it finds.
    const attempt = (operation: Promise<unknown>) =>
      operation.then(
        () => true,
        () => false,
      );
    const swapper = (async () => {
      while (running) {
        const moved = path.join(ws, `d-${swaps++}`);
        if (!(await attempt(rename(real, moved)))) {
          await new Promise((resolve) => setImmediate(resolve));
          continue;
        }
        await attempt(symlink(path.join(base, 'outside'), real));
        await new Promise((resolve) => setImmediate(resolve));
        await attempt(unlink(real));
        await attempt(rename(moved, real));
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    const result = await runCli(['run', 'flow.yml', '-j', '4', '--output', 'json'], { cwd: ws, timeoutMs: 60_000 });
    running = false;
    await swapper;

    expect(result.stderr).not.toContain('Error:');
    expect(swaps).toBeGreaterThan(10);
    const finished = result.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; stepId?: string; status?: string })
      .filter((event) => event.type === 'step_finished');
    expect(finished).toHaveLength(steps);
    expect(finished.some((event) => event.status === 'success')).toBe(true);
    expect(result.stdout).not.toContain(secret);
    // Nothing landed outside: the outside directory holds exactly what it held.
    expect(await tree(path.join(base, 'outside'))).toEqual(['secret.txt']);
    expect(await readFile(path.join(base, 'outside', 'secret.txt'), 'utf8')).toBe(`${secret}\n`);
    expect(await readdir(base)).toEqual(['outside', 'ws']);
    // No temporary file left behind by any write, failed, raced or successful.
    const inside = await tree(ws);
    expect(inside.filter((name) => /\.rho-[0-9a-f]+\.tmp$/.test(name))).toEqual([]);
    // Every write reported successful is inside the workspace, in d or in a directory d was moved to.
    const written = async (suffix: string, n: number) => {
      const found = inside.filter((name) => name === `d/${suffix}` || new RegExp(`^d-\\d+/${suffix}$`).test(name));
      expect(found.length, suffix).toBeGreaterThan(0);
      const contents = await Promise.all(found.map((name) => readFile(path.join(ws, name), 'utf8')));
      expect(contents).toContain(`step ${n}`);
    };
    for (const event of finished.filter((e) => e.status === 'success')) {
      const n = Number(event.stepId!.slice(1));
      if (n % 6 === 0) await written(`new-${n}.txt`, n);
      if (n % 6 === 1) await written(`dir-${n}/deep/f.txt`, n);
    }
  }, 90_000);
});
