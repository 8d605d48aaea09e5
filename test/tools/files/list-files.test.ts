import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { invoke, makeFileBox, writeTree, type FileBox } from './harness.js';

let box: FileBox;
beforeEach(async () => {
  box = await makeFileBox();
  await writeTree(box.ws, {
    'README.md': '# hi\n',
    'src/a.ts': 'a',
    'src/deep/b.ts': 'bb',
    'node_modules/pkg/index.ts': 'x',
    '.git/HEAD': 'ref',
  });
  await writeTree(box.outside, { 'hidden/outside-only.ts': 'secret' });
});
afterEach(async () => {
  await box.cleanup();
});

const list = (args: Record<string, unknown>, allow = ['read']) => invoke(box.host({ allow }), 'list_files', args);

describe('list_files', () => {
  it('lists direct children, sorted, with their types', async () => {
    const result = await list({});
    expect(result.output?.data).toEqual({
      entries: [
        { path: '.git', type: 'directory' },
        { path: 'README.md', type: 'file' },
        { path: 'node_modules', type: 'directory' },
        { path: 'src', type: 'directory' },
      ],
      truncated: false,
    });
    expect(result.output?.text).toBe('.git/\nREADME.md\nnode_modules/\nsrc/');
  });

  it('gives file sizes when asked, in the data and the text', async () => {
    await symlink(path.join(box.ws, 'README.md'), path.join(box.ws, 'src', 'readme-link'));
    const result = await list({ path: 'src', glob: '**', sizes: true });
    expect(result.output?.data).toEqual({
      entries: [
        { path: 'src/a.ts', type: 'file', size: 1 },
        { path: 'src/deep', type: 'directory' },
        { path: 'src/deep/b.ts', type: 'file', size: 2 },
        { path: 'src/readme-link', type: 'symlink' },
      ],
      truncated: false,
    });
    expect(result.output?.text).toBe('src/a.ts (1 bytes)\nsrc/deep/\nsrc/deep/b.ts (2 bytes)\nsrc/readme-link');
  });

  it('walks with a glob relative to path, skipping .git and node_modules', async () => {
    const all = await list({ glob: '**/*.ts' });
    expect((all.output!.data as { entries: { path: string }[] }).entries.map((entry) => entry.path)).toEqual(['src/a.ts', 'src/deep/b.ts']);
    const below = await list({ path: 'src', glob: '*.ts' });
    expect((below.output!.data as { entries: { path: string }[] }).entries.map((entry) => entry.path)).toEqual(['src/a.ts']);
  });

  it('stops at max_results and says so', async () => {
    const result = await list({ glob: '**', max_results: 2 });
    expect(result.output?.data).toMatchObject({ truncated: true });
    expect((result.output!.data as { entries: unknown[] }).entries).toHaveLength(2);
    expect(result.output?.text).toContain('listing stopped after 2 entries');
  });

  it('lists symlinks as links and never walks through them', async () => {
    await symlink(path.join(box.outside, 'hidden'), path.join(box.ws, 'src', 'escape'));
    const result = await list({ glob: '**' });
    const entries = (result.output!.data as { entries: { path: string; type: string }[] }).entries;
    expect(entries).toContainEqual({ path: 'src/escape', type: 'symlink' });
    expect(JSON.stringify(result.output)).not.toContain('outside-only');
  });

  it('authorizes the directory tree: read(src/**) lists src but not the root', async () => {
    const inside = await list({ path: 'src' }, ['read(src/**)']);
    expect(inside.status).toBe('success');
    const root = await list({}, ['read(src/**)']);
    expect(root.error?.kind).toBe('policy_denied');
    expect(root.error?.message).toContain('directory tree');
  });

  it('refuses a file where a directory is needed', async () => {
    const result = await list({ path: 'README.md' });
    expect(result.error?.kind).toBe('invalid_arguments');
    expect(result.error?.message).toContain('use read_file');
  });
});
