import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { invoke, makeFileBox, writeTree, type FileBox } from './harness.js';

let box: FileBox;
beforeEach(async () => {
  box = await makeFileBox();
  await writeTree(box.ws, {
    'src/a.ts': 'const needle = 1;\nother\n',
    'src/b.md': 'a NEEDLE here\r\n',
    'docs/private.txt': 'needle in docs\n',
    'node_modules/pkg/index.ts': 'needle\n',
    '.git/config': 'needle\n',
    'src/blob.bin': Buffer.from('needle\0binary'),
  });
  await writeTree(box.outside, { 'secret.txt': 'needle outside\n' });
});
afterEach(async () => {
  await box.cleanup();
});

type Matches = { matches: { path: string; line: number; text: string }[]; truncated: boolean };
const search = (args: Record<string, unknown>, allow = ['read']) => invoke(box.host({ allow }), 'search_files', args);

describe('search_files', () => {
  it('finds matching lines, skipping .git, node_modules and binary files', async () => {
    const result = await search({ pattern: 'needle' });
    expect(result.output?.data).toEqual({
      matches: [
        { path: 'docs/private.txt', line: 1, text: 'needle in docs' },
        { path: 'src/a.ts', line: 1, text: 'const needle = 1;' },
      ],
      truncated: false,
    });
    expect(result.output?.text).toBe('docs/private.txt:1:needle in docs\nsrc/a.ts:1:const needle = 1;');
  });

  it('filters with a glob, ignores case on request and searches a single file', async () => {
    const md = await search({ pattern: 'needle', path: 'src', glob: '*.md', case_insensitive: true });
    expect((md.output!.data as Matches).matches).toEqual([{ path: 'src/b.md', line: 1, text: 'a NEEDLE here' }]);
    const one = await search({ pattern: 'other', path: 'src/a.ts' });
    expect((one.output!.data as Matches).matches).toEqual([{ path: 'src/a.ts', line: 2, text: 'other' }]);
  });

  it('stops at max_matches', async () => {
    const result = await search({ pattern: 'e', max_matches: 1 });
    expect(result.output?.data).toMatchObject({ truncated: true });
    expect((result.output!.data as Matches).matches).toHaveLength(1);
  });

  it('keeps the order of the walk and the limit across many files, with and without a required literal', async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 300; index++) files[`many/f${String(index).padStart(3, '0')}.txt`] = index % 3 === 0 ? `x\nhit ${index}\r\n` : 'miss\n';
    await writeTree(box.ws, files);
    const expected = Object.keys(files)
      .filter((_, index) => index % 3 === 0)
      .map((file, index) => ({ path: file, line: 2, text: `hit ${index * 3}` }));
    for (const pattern of ['hit \\d+', '^h.t \\d+$']) {
      const all = await search({ pattern, path: 'many' });
      expect(all.output?.data).toEqual({ matches: expected, truncated: false });
      const some = await search({ pattern, path: 'many', max_matches: 57 });
      expect(some.output?.data).toEqual({ matches: expected.slice(0, 57), truncated: true });
    }
  });

  it('follows links only to files inside the searched tree', async () => {
    await symlink(path.join(box.ws, 'src', 'a.ts'), path.join(box.ws, 'src', 'inside-link.ts'));
    await symlink(path.join(box.outside, 'secret.txt'), path.join(box.ws, 'src', 'outside-link.txt'));
    await symlink(path.join(box.ws, 'docs', 'private.txt'), path.join(box.ws, 'src', 'sibling-link.txt'));
    await symlink(box.outside, path.join(box.ws, 'src', 'outside-dir'));
    const result = await search({ pattern: 'needle', path: 'src' }, ['read(src/**)']);
    expect((result.output!.data as Matches).matches.map((match) => match.path)).toEqual(['src/a.ts', 'src/inside-link.ts']);
    expect(JSON.stringify(result.output)).not.toContain('outside');
    expect(JSON.stringify(result.output)).not.toContain('in docs');
  });

  it('refuses an invalid pattern while preparing, naming the field', async () => {
    const result = await search({ pattern: '(' });
    expect(result.error?.kind).toBe('invalid_arguments');
    expect(result.error?.message).toContain('pattern: not a valid regular expression');
  });

  it('stops a pattern that backtracks catastrophically instead of hanging', async () => {
    await writeTree(box.ws, { 'evil.txt': `${'a'.repeat(40)}!\n` });
    // Matched to the end, this would take longer than the test's timeout.
    const result = await search({ pattern: '^(a+)+$', path: 'evil.txt' });
    expect(result.error?.kind).toBe('execution_failed');
    expect(result.error?.message).toContain('backtracks');
  });
});
