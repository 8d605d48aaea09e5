import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot, temporaryDirectories } from '../support/cli.js';
import { docPages } from '../support/docs.js';

const directories = temporaryDirectories('rho-install-');
afterAll(() => directories.removeAll());

const packageName = 'rho-cli';

/**
 * The lockfile a project that ran `npm install -D TARBALL` would have: the tarball as a dev
 * dependency and rho's runtime dependencies at the versions rho's own lockfile pins. With it,
 * `npm ci --offline` installs from the cache `npm ci` filled, so the test needs no network.
 */
async function lockfileFor(tarball: string, integrity: string): Promise<object> {
  const own = JSON.parse(await readFile(path.join(repoRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, Record<string, unknown>> };
  const { '': root, ...entries } = own.packages;
  const runtime = Object.entries(entries).filter(([, entry]) => entry['dev'] !== true && entry['devOptional'] !== true);
  const spec = `file:${tarball}`;
  return {
    name: 'app',
    version: '1.0.0',
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: 'app', version: '1.0.0', devDependencies: { [packageName]: spec } },
      [`node_modules/${packageName}`]: {
        version: root!['version'],
        resolved: spec,
        integrity,
        dev: true,
        license: root!['license'],
        dependencies: root!['dependencies'],
        bin: root!['bin'],
        engines: root!['engines'],
      },
      ...Object.fromEntries(runtime.map(([place, entry]) => [place, { ...entry, dev: true }])),
    },
  };
}

/**
 * The package as a user gets it: packed from this tree (already built by `npm test`) and
 * installed into a project of its own; what the tarball lacks fails the install or the run.
 */
describe('the packed package', () => {
  it('installs into a fresh project, where npx rho init writes a file that npx rho run finds and runs', async () => {
    const project = await directories.make();
    await execa('npm', ['pack', '--ignore-scripts', '--pack-destination', project], { cwd: repoRoot });
    const [tarball] = (await readdir(project)).filter((name) => name.endsWith('.tgz'));
    expect(tarball).toMatch(new RegExp(`^${packageName}-\\d+\\.\\d+\\.\\d+\\.tgz$`));
    const integrity = `sha512-${createHash('sha512')
      .update(await readFile(path.join(project, tarball!)))
      .digest('base64')}`;
    await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true, devDependencies: { [packageName]: `file:${tarball}` } }));
    await writeFile(path.join(project, 'package-lock.json'), JSON.stringify(await lockfileFor(tarball!, integrity)));
    const npm = { cwd: project, env: { npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' } };
    await execa('npm', ['ci', '--offline', '--ignore-scripts'], npm);

    const init = await execa('npx', ['--offline', 'rho', 'init'], { ...npm, reject: false });
    expect(init.exitCode, init.stderr).toBe(0);
    // The schema comment it writes resolves in this project.
    const written = await readFile(path.join(project, 'rho.yml'), 'utf8');
    const schema = /\$schema=(\S+)/.exec(written)?.[1];
    expect((await stat(path.join(project, schema!))).isFile()).toBe(true);
    // The documentation the README links to ships with it.
    for (const page of docPages()) expect((await stat(path.join(project, 'node_modules', packageName, page.file))).isFile(), page.file).toBe(true);

    // From a subdirectory, as a task runner is used: the file is found upward, its directory is the workspace.
    const nested = path.join(project, 'src');
    await mkdir(nested);
    const run = await execa('npx', ['--offline', 'rho', 'run', '-i', 'message=installed', '--output', 'plain'], { ...npm, cwd: nested, reject: false });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain('installed');
    expect(await readFile(path.join(project, 'notes', 'hello.txt'), 'utf8')).toBe('installed\n');
  }, 180_000);
});
