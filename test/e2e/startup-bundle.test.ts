import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cliPath, repoRoot, temporaryDirectories, writeFiles } from '../support/cli.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());

/** Resolution hooks that name every file module the CLI loads, one `loaded <url>` line each on stderr. */
const recorder = `data:text/javascript,${encodeURIComponent(
  `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(\`export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (result.url.startsWith('file:')) process.stderr.write('loaded ' + result.url + '\\\\n');
  return result;
}\`));`,
)}`;

async function loadedModules(args: readonly string[], cwd: string): Promise<{ exitCode: number | undefined; urls: string[] }> {
  const result = await execa('node', ['--import', recorder, cliPath, ...args], { cwd, env: { CI: 'true', NO_COLOR: '1' }, reject: false, stdin: 'ignore', timeout: 30_000 });
  const urls = [...new Set(String(result.stderr).split('\n').filter((line) => line.startsWith('loaded ')).map((line) => line.slice('loaded '.length)))];
  return { exitCode: result.exitCode, urls };
}

describe.concurrent('start-up path', () => {
  it('runs a workflow from the bundle alone: no module of rho or of a dependency is loaded on its own', async () => {
    const dir = await directories.make();
    await writeFiles(dir, { 'one.yml': 'version: 1\nname: one\nsteps:\n  - id: s1\n    tool: echo\n    with: { value: hi }\n' });
    const { exitCode, urls } = await loadedModules(['run', 'one.yml'], dir);
    expect(exitCode).toBe(0);
    const bundle = pathToFileURL(path.join(repoRoot, 'dist', 'cli')).href;
    const entry = pathToFileURL(cliPath).href;
    expect(urls).toContain(`${bundle}/oclif.js`);
    expect(urls).toContain(`${bundle}/commands.js`);
    expect(urls.filter((url) => url !== entry && !url.startsWith(`${bundle}/`))).toEqual([]);
  });

  it('answers --version without loading anything beyond bin/run.js', async () => {
    const dir = await directories.make();
    const { exitCode, urls } = await loadedModules(['--version'], dir);
    expect(exitCode).toBe(0);
    expect(urls).toEqual([pathToFileURL(cliPath).href]);
  });
});
