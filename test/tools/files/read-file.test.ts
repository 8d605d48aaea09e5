import { execFileSync } from 'node:child_process';
import { symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { invoke, makeFileBox, writeTree, type FileBox } from './harness.js';

let box: FileBox;
beforeEach(async () => {
  box = await makeFileBox();
});
afterEach(async () => {
  await box.cleanup();
});

const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(24, 1)]);

describe('read_file', () => {
  it('returns a line range and where to continue', async () => {
    await writeTree(box.ws, { 'notes.txt': 'one\ntwo\nthree\nfour\n' });
    const result = await invoke(box.host({ allow: ['read'] }), 'read_file', { path: 'notes.txt', offset: 2, limit: 2 });
    expect(result.status).toBe('success');
    expect(result.output?.data).toEqual({ path: 'notes.txt', content: 'two\nthree\n', truncated: false, next_offset: 4 });
    expect(result.output?.text).toBe('two\nthree\n');
  });

  it('cuts at a line boundary under max_bytes, and never inside a UTF-8 character', async () => {
    await writeTree(box.ws, { 'lines.txt': 'aaaa\nbbbb\ncccc\n', 'wide.txt': 'ééééé' });
    const host = box.host({ allow: ['read'] });
    const lines = await invoke(host, 'read_file', { path: 'lines.txt', max_bytes: 12 });
    expect(lines.output?.data).toMatchObject({ content: 'aaaa\nbbbb\n', truncated: true, next_offset: 3 });
    const wide = await invoke(host, 'read_file', { path: 'wide.txt', max_bytes: 5 });
    expect(wide.output?.data).toMatchObject({ content: 'éé', truncated: true });
  });

  it('returns images as images with their media type', async () => {
    await writeTree(box.ws, { 'pic.dat': png });
    const result = await invoke(box.host({ allow: ['read'] }), 'read_file', { path: 'pic.dat' });
    expect(result.output?.images).toEqual([{ mediaType: 'image/png', data: png.toString('base64') }]);
    expect(result.output?.data).toMatchObject({ path: 'pic.dat', media_type: 'image/png', bytes: png.length });
  });

  it('refuses binary files and images over the byte cap', async () => {
    await writeTree(box.ws, { 'blob.bin': Buffer.from([1, 2, 0, 3]), 'pic.png': png });
    const host = box.host({ allow: ['read'] });
    const binary = await invoke(host, 'read_file', { path: 'blob.bin' });
    expect(binary.error?.kind).toBe('unsupported');
    expect(binary.error?.message).toContain('blob.bin is a binary file');
    const big = await invoke(host, 'read_file', { path: 'pic.png', max_bytes: 10 });
    expect(big.error?.message).toContain('over the 10-byte limit');
  });

  it('refuses directories and pipes while preparing', async () => {
    execFileSync('mkfifo', [path.join(box.ws, 'pipe')]);
    const host = box.host({ allow: ['read'] });
    const dir = await invoke(host, 'read_file', { path: '.' });
    expect(dir.error?.kind).toBe('invalid_arguments');
    expect(dir.error?.message).toContain('is a directory');
    const pipe = await invoke(host, 'read_file', { path: 'pipe' });
    expect(pipe.error?.message).toContain('a pipe, socket or device');
  });

  it('shows the resolved path of a link and needs a rule for it', async () => {
    await writeTree(box.ws, { 'docs/real.md': '# real\n' });
    await symlink('docs/real.md', path.join(box.ws, 'alias.md'));
    const allowed = await invoke(box.host({ allow: ['read(docs/**)'] }), 'read_file', { path: 'alias.md' });
    expect(allowed.output?.data).toMatchObject({ path: 'docs/real.md', content: '# real\n' });
    const denied = await invoke(box.host({ allow: ['read(alias.md)'] }), 'read_file', { path: 'alias.md' });
    expect(denied.status).toBe('denied');
    expect(denied.error?.kind).toBe('policy_denied');
  });

  it('needs the outside rule for a path only unrestricted resolution accepts', async () => {
    await writeFile(path.join(box.outside, 'note.txt'), 'note');
    const workspace = box.workspace.withUnrestrictedFileAccess();
    const without = await invoke(box.host({ allow: ['read'] }, { workspace }), 'read_file', { path: '../outside/note.txt' });
    expect(without.error?.kind).toBe('policy_denied');
    const withOutside = await invoke(box.host({ allow: ['read', 'outside'] }, { workspace }), 'read_file', { path: '../outside/note.txt' });
    expect(withOutside.output?.data).toMatchObject({ path: path.join(box.outside, 'note.txt'), content: 'note' });
  });

  it('needs the outside rule for a granted root', async () => {
    await writeFile(path.join(box.granted, 'shared.txt'), 'shared');
    const target = path.join(box.granted, 'shared.txt');
    const without = await invoke(box.host({ allow: ['read'] }), 'read_file', { path: target });
    expect(without.error?.kind).toBe('policy_denied');
    expect(without.error?.message).toContain('outside');
    const withOutside = await invoke(box.host({ allow: ['read', 'outside'] }), 'read_file', { path: target });
    expect(withOutside.output?.data).toMatchObject({ path: target, content: 'shared' });
  });
});
