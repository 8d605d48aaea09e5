import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './support/cli.js';

/**
 * Files where a plain Error is right: errors.ts holds the base every error class of rho's
 * extends; library-floor.ts writes a script that loads only oclif, zod and yaml, not rho.
 */
const plainOnPurpose = ['src/host/errors.ts', 'bench/lib/library-floor.ts'];

/** A bare Error made, or an error class outside the closed kinds. */
const untyped = /\bnew Error\(|\bextends Error\b/;

const allowed = (file: string) => plainOnPurpose.includes(file);

/** rho's code and its bench's. */
async function sourceFiles(): Promise<string[]> {
  const entries = (await Promise.all(['src', 'bench'].map((folder) => readdir(path.join(repoRoot, folder), { withFileTypes: true, recursive: true })))).flat();
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.relative(repoRoot, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
}

describe('errors rho throws', () => {
  it('are typed (HostError or ToolError of a closed kind, or a class extending one), never a bare Error', async () => {
    const bare: string[] = [];
    for (const file of await sourceFiles()) {
      if (allowed(file)) continue;
      const lines = (await readFile(path.join(repoRoot, file), 'utf8')).split('\n');
      lines.forEach((line, index) => {
        if (untyped.test(line)) bare.push(`${file}:${index + 1}: ${line.trim()}`);
      });
    }
    expect(bare).toEqual([]);
  });

  it('allow only files that exist and still hold a bare Error', async () => {
    const files = await sourceFiles();
    const stale: string[] = [];
    for (const entry of plainOnPurpose) {
      const covered = files.filter((file) => file === entry);
      const texts = await Promise.all(covered.map((file) => readFile(path.join(repoRoot, file), 'utf8')));
      if (!texts.some((text) => untyped.test(text))) stale.push(entry);
    }
    expect(stale).toEqual([]);
  });
});
