import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './support/cli.js';

/**
 * Folders whose bare errors are being turned into typed ones on other branches; each entry goes
 * once its folder has none left.
 */
const convertingElsewhere = ['src/hooks/', 'src/tools/mcp/', 'src/tools/process/sandbox/'];

/**
 * Files where a plain Error is right. masking.ts copies an Error some code threw with its message
 * masked: the copy stands for that error as it was, not for a failure of rho's own. errors.ts
 * holds the one base every error class of rho's extends.
 */
const plainOnPurpose = ['src/host/masking.ts', 'src/host/errors.ts'];

/** A bare Error made, or an error class outside the closed kinds. */
const untyped = /\bnew Error\(|\bextends Error\b/;

const allowed = (file: string) => convertingElsewhere.some((folder) => file.startsWith(folder)) || plainOnPurpose.includes(file);

async function sourceFiles(): Promise<string[]> {
  const src = path.join(repoRoot, 'src');
  const entries = await readdir(src, { withFileTypes: true, recursive: true });
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
    for (const entry of [...convertingElsewhere, ...plainOnPurpose]) {
      const covered = files.filter((file) => file === entry || (entry.endsWith('/') && file.startsWith(entry)));
      const texts = await Promise.all(covered.map((file) => readFile(path.join(repoRoot, file), 'utf8')));
      if (!texts.some((text) => untyped.test(text))) stale.push(entry);
    }
    expect(stale).toEqual([]);
  });
});
