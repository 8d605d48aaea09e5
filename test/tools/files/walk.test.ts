import { rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/host/errors.js';
import { readFileIn } from '../../../src/tools/files/open-file.js';
import { describedFile, TreeWalk, type WalkedEntry } from '../../../src/tools/files/walk.js';
import { makeFileBox, writeTree, type FileBox } from './harness.js';

let box: FileBox;
beforeEach(async () => {
  box = await makeFileBox();
  await writeTree(box.ws, { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n', 'sub/d.txt': 'd\n' });
  await writeTree(box.outside, { 'secret.txt': 'secret\n', 'other/d.txt': 'outside d\n' });
});
afterEach(async () => {
  await box.cleanup();
});

/** Walks the workspace, running `during` once when the walk reaches `at`, and reads every file the way search_files does. */
async function walkAndRead(at: string, during: () => Promise<void>): Promise<{ read: Record<string, string>; error?: ToolError }> {
  const walk = new TreeWalk(await box.workspace.resolveForRead('.'), { recursive: true, signal: new AbortController().signal, withheld: () => false, describeFiles: true });
  const read: Record<string, string> = {};
  try {
    for await (const entry of walk.entries()) {
      if (entry.relative === at) await during();
      if (entry.kind === 'file') read[entry.relative] = readOne(entry);
    }
    return { read };
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    return { read, error };
  }
}

function readOne(entry: WalkedEntry): string {
  const info = describedFile(entry);
  return readFileIn(entry.directory, entry.name, { dev: info.dev, ino: info.ino }, entry.relative, 1 << 20)?.toString('utf8') ?? '';
}

describe('a tree walk with reads relative to its checked directories', () => {
  it('reads every file of the tree', async () => {
    const { read, error } = await walkAndRead('', async () => undefined);
    expect(error).toBeUndefined();
    expect(read).toEqual({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n', 'sub/d.txt': 'd\n' });
  });

  it('refuses a file swapped for a symlink after the walk described it', async () => {
    const { read, error } = await walkAndRead('a.txt', async () => {
      await rm(path.join(box.ws, 'b.txt'));
      await symlink(path.join(box.outside, 'secret.txt'), path.join(box.ws, 'b.txt'));
    });
    expect(error?.kind).toBe('path_refused');
    expect(error?.message).toContain('became a symlink');
    expect(JSON.stringify(read)).not.toContain('secret');
  });

  it('refuses a file replaced by another one after the walk described it', async () => {
    const { error } = await walkAndRead('a.txt', async () => {
      await writeFile(path.join(box.ws, 'replacement.txt'), 'replaced\n');
      await rename(path.join(box.ws, 'replacement.txt'), path.join(box.ws, 'c.txt'));
    });
    expect(error?.kind).toBe('path_refused');
    expect(error?.message).toContain('replaced after it was checked');
  });

  it('refuses a directory swapped for a symlink out before the walk enters it', async () => {
    const { read, error } = await walkAndRead('c.txt', async () => {
      await rename(path.join(box.ws, 'sub'), path.join(box.base, 'moved'));
      await symlink(path.join(box.outside, 'other'), path.join(box.ws, 'sub'));
    });
    expect(error?.kind).toBe('path_refused');
    expect(read['sub/d.txt']).toBeUndefined();
    expect(JSON.stringify(read)).not.toContain('outside');
  });

  it('hands out runs of entries from one open directory, in the order of the walk', async () => {
    const walk = new TreeWalk(await box.workspace.resolveForRead('.'), { recursive: true, signal: new AbortController().signal, withheld: () => false, describeFiles: true });
    const order: string[] = [];
    for await (const batch of walk.batches()) {
      expect(new Set(batch.map((entry) => entry.directory)).size).toBe(1);
      for (const entry of batch) {
        order.push(entry.relative);
        if (entry.kind === 'file') expect(readOne(entry)).toBe(`${entry.name[0]}\n`);
      }
    }
    expect(order).toEqual(['a.txt', 'b.txt', 'c.txt', 'sub', 'sub/d.txt']);
  });

  it('lets no read use a directory descriptor once the walk has closed it', async () => {
    const walk = new TreeWalk(await box.workspace.resolveForRead('.'), { recursive: false, signal: new AbortController().signal, withheld: () => false, describeFiles: true });
    let first: WalkedEntry | undefined;
    for await (const entry of walk.entries()) first ??= entry;
    expect(() => readOne(first!)).toThrow(/used after it was closed/);
  });
});
