import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { invoke, makeFileBox, writeTree, type FileBox } from './harness.js';

let box: FileBox;
beforeEach(async () => {
  box = await makeFileBox();
  await writeTree(box.ws, {
    '.env': 'TOKEN=needle-secret\n',
    'config/prod.key': 'needle key\n',
    'src/app.ts': 'const needle = 1;\n',
  });
  await symlink(path.join(box.ws, '.env'), path.join(box.ws, 'src/env-link'));
});
afterEach(async () => {
  await box.cleanup();
});

describe('directory-wide reads keep back what deny and ask rules cover', () => {
  const policy = { allow: ['read'], deny: ['read(.env)'], ask: ['read(config/**)'] };

  it('search_files never reads a denied file, directly or through a link', async () => {
    const result = await invoke(box.host(policy), 'search_files', { pattern: 'needle' });
    expect(result.status).toBe('success');
    const paths = (result.output!.data as { matches: { path: string }[] }).matches.map((m) => m.path);
    expect(paths).toEqual(['src/app.ts']);
    expect(JSON.stringify(result.output)).not.toContain('needle-secret');
  });

  it('list_files does not list denied or approval-gated paths', async () => {
    const result = await invoke(box.host(policy), 'list_files', { glob: '**' });
    const entries = JSON.stringify(result.output?.data);
    expect(entries).toContain('src/app.ts');
    expect(entries).not.toContain('.env"');
    expect(entries).not.toContain('prod.key');
  });

  it('the file itself stays denied by name', async () => {
    const result = await invoke(box.host(policy), 'read_file', { path: '.env' });
    expect(result.status).toBe('denied');
  });
});
