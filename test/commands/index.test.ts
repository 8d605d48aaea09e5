import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../commands/index.js';

const commandsDir = fileURLToPath(new URL('../../commands/', import.meta.url));

describe('explicit command list', () => {
  it('names every command file under commands/, by its oclif id', async () => {
    const files = (await readdir(commandsDir, { recursive: true })).filter((file) => file.endsWith('.ts') && file !== 'index.ts');
    const ids = files.map((file) => file.slice(0, -'.ts'.length).split(path.sep).join(':')).sort();
    expect(Object.keys(COMMANDS).sort()).toEqual(ids);
    for (const id of ids) expect(COMMANDS[id], id).toBeTypeOf('function');
  });

  it('sorts alike by code unit and by locale, so the bundle may sort them by code unit (scripts/oclif-patches.mjs)', () => {
    const ids = Object.keys(COMMANDS);
    expect([...ids].sort()).toEqual([...ids].sort((a, b) => a.localeCompare(b)));
  });
});
