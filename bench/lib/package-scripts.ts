import { realpathSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../../src/host/errors.js';
import { findInDirectories, searchDirectories } from '../../src/tools/process/executable.js';

/**
 * A package of `count` scripts `s1`…`sN`, each `script`, in `dir`. Its `.npmrc` turns off npm's
 * update check, which a fresh home would otherwise make over the network on the first run
 * (a user's npm has made it within the week and skips it).
 */
export async function writeScriptsPackage(dir: string, count: number, script: string): Promise<string[]> {
  const names = Array.from({ length: count }, (_, index) => `s${index + 1}`);
  const scripts = Object.fromEntries(names.map((name) => [name, script]));
  await writeFile(path.join(dir, 'package.json'), `${JSON.stringify({ name: `scripts-${count}`, version: '1.0.0', private: true, scripts }, null, 2)}\n`);
  await writeFile(path.join(dir, '.npmrc'), 'update-notifier=false\n');
  return names;
}

/** npm's own script (`npm-cli.js`), where the `npm` on PATH leads: what `npm run` starts. */
export function npmCliScript(): string {
  const npm = findInDirectories('npm', searchDirectories(process.env.PATH));
  if (!npm) throw new ToolError('not_found', 'npm is not on PATH: the scripts suite runs package.json scripts through it');
  return realpathSync(npm);
}
