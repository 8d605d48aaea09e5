import { link, mkdir, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Approver } from '../../src/host/approval.js';
import { quotePath } from '../../src/host/path-text.js';
import type { ToolResult } from '../../src/host/tool.js';
import { CheckedDirectory } from '../../src/tools/files/checked-directory.js';
import { openTargetDirectory } from '../../src/tools/files/missing-directories.js';
import { openResolvedFile } from '../../src/tools/files/open-file.js';
import { stageFile } from '../../src/tools/files/staged-file.js';
import { invoke, makeFileBox, writeTree, type FileBox } from '../tools/files/harness.js';

/**
 * Hostile paths against every file tool, under the broadest policy (read, write and outside
 * all allowed): the workspace itself must refuse them with a typed error naming the path and
 * the reason, and nothing outside the permitted roots may be read or written.
 */
let box: FileBox;
const secret = 'TOP-SECRET-OUTSIDE';
const everything = { allow: ['read', 'write', 'outside'] };

beforeEach(async () => {
  box = await makeFileBox();
  await writeTree(box.ws, { 'a.txt': 'inside\n', 'sub/b.txt': 'inside b\n' });
  await writeTree(box.outside, { 'secret.txt': `${secret}\n`, 'dir/inner.txt': `${secret} inner\n` });
});

afterEach(async () => {
  await box.cleanup();
});

async function outsideUntouched(): Promise<void> {
  expect((await readdir(box.outside, { recursive: true })).sort()).toEqual(['dir', 'dir/inner.txt', 'secret.txt']);
  expect(await readFile(path.join(box.outside, 'secret.txt'), 'utf8')).toBe(`${secret}\n`);
  expect((await readdir(box.base)).filter((name) => !name.startsWith('ws-'))).toEqual(['granted', 'outside', 'ws']);
}

function expectRefused(result: ToolResult, requested: string, reason: RegExp | string): void {
  expect(result.status, JSON.stringify(result.error)).toBe('failure');
  expect(result.error?.kind).toBe('path_refused');
  expect(result.error?.message).toContain(quotePath(requested));
  expect(String(result.error?.details['reason'])).toMatch(reason);
  expect(JSON.stringify(result)).not.toContain(secret);
}

/** One call of each file tool on `requested`, as a read, a write and a walk would use it. */
function callsOn(requested: string): [string, Record<string, unknown>][] {
  return [
    ['read_file', { path: requested }],
    ['write_file', { path: requested, content: 'pwned', create_dirs: true }],
    ['write_file', { path: requested, content: 'pwned', mode: 'append' }],
    ['edit_file', { path: requested, edits: [{ old: secret, new: 'pwned' }] }],
    ['list_files', { path: requested, glob: '**' }],
    ['search_files', { pattern: secret, path: requested }],
  ];
}

async function expectAllRefused(requested: string, reason: RegExp | string): Promise<void> {
  const host = box.host(everything);
  for (const [tool, args] of callsOn(requested)) expectRefused(await invoke(host, tool, args), requested, reason);
  await outsideUntouched();
}

describe('attack suite: every file tool refuses', () => {
  it.each([
    '..',
    '../outside/secret.txt',
    './../outside/secret.txt',
    'sub/../../outside/secret.txt',
    'sub/../a.txt',
    'sub/..',
    'a.txt/..',
    'sub/b.txt/../../../outside/secret.txt',
  ])('parent traversal %s', async (requested) => {
    await expectAllRefused(requested, /parent traversal/);
  });

  it('parent traversal written inside an absolute path', async () => {
    await expectAllRefused(`${box.ws}/../outside/secret.txt`, /parent traversal/);
    await expectAllRefused(`${box.ws}/sub/..`, /parent traversal/);
  });

  it('absolute paths outside every root, including a sibling sharing the root as a prefix', async () => {
    await mkdir(`${box.ws}-evil`);
    await writeFile(`${box.ws}-evil/x.txt`, secret);
    await expectAllRefused(path.join(box.outside, 'secret.txt'), /outside the workspace and every granted root/);
    await expectAllRefused(box.outside, /outside the workspace/);
    await expectAllRefused('/', /outside the workspace/);
    await expectAllRefused(`${box.ws}-evil/x.txt`, /outside the workspace/);
    expect(await readdir(`${box.ws}-evil`)).toEqual(['x.txt']);
    expect(await readFile(`${box.ws}-evil/x.txt`, 'utf8')).toBe(secret);
    await rm(`${box.ws}-evil`, { recursive: true });
  });

  it('file and directory symlinks pointing out (absolute and relative targets)', async () => {
    await symlink(path.join(box.outside, 'secret.txt'), path.join(box.ws, 'file-link'));
    await symlink('../outside/secret.txt', path.join(box.ws, 'relative-link'));
    await symlink(box.outside, path.join(box.ws, 'dir-link'));
    await symlink('../../outside/dir', path.join(box.ws, 'sub', 'nested-dir-link'));
    for (const requested of ['file-link', 'relative-link', 'dir-link', 'dir-link/secret.txt', 'dir-link/new.txt', 'sub/nested-dir-link/inner.txt']) {
      await expectAllRefused(requested, /outside the workspace/);
    }
  });

  it('symlink loops', async () => {
    await symlink('self', path.join(box.ws, 'self'));
    await symlink('ping', path.join(box.ws, 'pong'));
    await symlink('pong', path.join(box.ws, 'ping'));
    for (const requested of ['self', 'ping', 'self/x.txt', 'pong/deeper/x.txt']) await expectAllRefused(requested, 'symlink loop');
  });

  it('NUL bytes anywhere in the path', async () => {
    for (const requested of ['a.txt\0', 'a.txt\0.png', '\0../outside/secret.txt', 'sub/\0/b.txt']) await expectAllRefused(requested, 'NUL byte');
  });

  it('.. hidden after a symlink, and links whose own target climbs out', async () => {
    await symlink('sub', path.join(box.ws, 'inner'));
    await symlink('..', path.join(box.ws, 'up'));
    await expectAllRefused('inner/../../outside/secret.txt', /parent traversal/);
    await expectAllRefused('up/outside/secret.txt', /outside the workspace/);
    await expectAllRefused('up', /outside the workspace/);
  });

  it('Unicode look-alike separators and dots, and direction marks', async () => {
    for (const requested of ['..\u2215outside\u2215secret.txt', '..\uff0foutside', '\uff0e\uff0e/outside', '..\u2044outside', 'sub\u29f8..', 'a\u202e.txt']) {
      await expectAllRefused(requested, /looks like a path separator|invisible or text-direction/);
    }
  });

  it('very long paths: over the argument cap, and components the file system cannot hold', async () => {
    const host = box.host(everything);
    for (const [tool, args] of callsOn(`${'a/'.repeat(2048)}x`)) {
      const result = await invoke(host, tool, args);
      expect(result.error?.kind).toBe('invalid_arguments');
      expect(result.error?.message).toContain('path: Too big');
    }
    await expectAllRefused(`${'x'.repeat(300)}.txt`, 'too long');
    await expectAllRefused(`sub/${'y'.repeat(300)}/z.txt`, 'too long');
  });

  it('writes through a dangling link, to a file or below a directory that does not exist yet', async () => {
    await symlink(path.join(box.outside, 'planted.txt'), path.join(box.ws, 'dangling'));
    await symlink(path.join(box.outside, 'newdir'), path.join(box.ws, 'dangling-dir'));
    const host = box.host(everything);
    expectRefused(await invoke(host, 'write_file', { path: 'dangling', content: 'pwned' }), 'dangling', 'dangling symlink');
    expectRefused(await invoke(host, 'write_file', { path: 'dangling', content: 'pwned', mode: 'create' }), 'dangling', 'dangling symlink');
    const below = await invoke(host, 'write_file', { path: 'dangling-dir/x.txt', content: 'pwned', create_dirs: true });
    expectRefused(below, 'dangling-dir/x.txt', 'dangling symlink in a parent');
    await outsideUntouched();
  });
});

describe('attack suite: swaps between authorization and I/O', () => {
  /** Approves every request, after running `swap` — the attacker's move while a person decides. */
  function swappingApprover(swap: () => Promise<void>): Approver {
    return {
      async approve() {
        await swap();
        return 'allow_once';
      },
    };
  }

  it('a file swapped for a symlink out while the read waits for approval', async () => {
    const approver = swappingApprover(async () => {
      await rm(path.join(box.ws, 'a.txt'));
      await symlink(path.join(box.outside, 'secret.txt'), path.join(box.ws, 'a.txt'));
    });
    const host = box.host({ allow: ['read', 'outside'], ask: ['read(a.txt)'] }, { approver });
    const result = await invoke(host, 'read_file', { path: 'a.txt' });
    expectRefused(result, 'a.txt', /changed after authorization/);
    expect(result.error?.message).toContain('changed on disk after it was authorized');
  });

  it('a directory swapped for a symlink out while a write or a listing waits', async () => {
    const swapSub = async () => {
      await rename(path.join(box.ws, 'sub'), path.join(box.ws, 'sub-moved'));
      await symlink(box.outside, path.join(box.ws, 'sub'));
    };
    const writer = box.host({ allow: ['write', 'outside'], ask: ['write(sub/**)'] }, { approver: swappingApprover(swapSub) });
    expectRefused(await invoke(writer, 'write_file', { path: 'sub/new.txt', content: 'pwned' }), 'sub/new.txt', /changed after authorization/);
    await rm(path.join(box.ws, 'sub'));
    await rename(path.join(box.ws, 'sub-moved'), path.join(box.ws, 'sub'));
    const lister = box.host({ allow: ['read', 'outside'], ask: ['read(sub/**)'] }, { approver: swappingApprover(swapSub) });
    expectRefused(await invoke(lister, 'list_files', { path: 'sub', glob: '**' }), 'sub', /changed after authorization/);
    await outsideUntouched();
  });

  it('a missing write target planted as a link while the write waits', async () => {
    const approver = swappingApprover(() => symlink(path.join(box.outside, 'secret.txt'), path.join(box.ws, 'fresh.txt')));
    const host = box.host({ allow: ['write', 'outside'], ask: ['write(fresh.txt)'] }, { approver });
    expectRefused(await invoke(host, 'write_file', { path: 'fresh.txt', content: 'pwned' }), 'fresh.txt', /changed after authorization/);
    await outsideUntouched();
  });

  it('a swap after revalidation is still caught on the open file handle', async () => {
    const resolved = await box.workspace.resolveForRead('a.txt');
    await box.workspace.revalidate(resolved);
    await rename(path.join(box.ws, 'a.txt'), path.join(box.ws, 'a-moved.txt'));
    await writeFile(path.join(box.ws, 'a.txt'), secret);
    await expect(openResolvedFile(resolved, 'a.txt')).rejects.toMatchObject({ kind: 'path_refused' });
    await rm(path.join(box.ws, 'a.txt'));
    await symlink(path.join(box.outside, 'secret.txt'), path.join(box.ws, 'a.txt'));
    await expect(openResolvedFile(resolved, 'a.txt')).rejects.toMatchObject({ kind: 'path_refused' });
  });

  it('a directory swapped after revalidation is refused when the write opens it', async () => {
    const resolved = await box.workspace.resolveForWrite('sub/new.txt');
    await box.workspace.revalidate(resolved);
    await rename(path.join(box.ws, 'sub'), path.join(box.ws, 'sub-moved'));
    await symlink(box.outside, path.join(box.ws, 'sub'));
    await expect(openTargetDirectory(resolved, 'sub/new.txt')).rejects.toMatchObject({ kind: 'path_refused' });
    await outsideUntouched();
  });

  it('a directory swapped once the write holds it: the file lands in the checked directory, never through the link', async () => {
    const directory = await CheckedDirectory.open(path.join(box.ws, 'sub'), 'sub');
    try {
      await rename(path.join(box.ws, 'sub'), path.join(box.ws, 'sub-moved'));
      await symlink(box.outside, path.join(box.ws, 'sub'));
      const staged = await stageFile(directory, 'new.txt', Buffer.from('written'), undefined);
      await staged.createNew('sub/new.txt');
      const replaced = await stageFile(directory, 'b.txt', Buffer.from('replaced'), undefined);
      await replaced.replace();
    } finally {
      await directory.close();
    }
    expect((await readdir(path.join(box.ws, 'sub-moved'))).sort()).toEqual(['b.txt', 'new.txt']);
    expect(await readFile(path.join(box.ws, 'sub-moved', 'new.txt'), 'utf8')).toBe('written');
    await outsideUntouched();
  });

  it('a directory replaced by another under its name is refused when opened', async () => {
    const before = await box.workspace.resolveForRead('sub');
    await rename(path.join(box.ws, 'sub'), path.join(box.ws, 'sub-moved'));
    await mkdir(path.join(box.ws, 'sub'));
    await expect(CheckedDirectory.open(path.join(box.ws, 'sub'), 'sub', before.identity)).rejects.toMatchObject({ kind: 'path_refused' });
  });
});

describe('attack suite: other names for a denied file', () => {
  const composed = 'caf\u00e9';
  const decomposed = 'cafe\u0301';

  it.each([
    ['a rule written composed (NFC), a path decomposed (NFD)', composed, decomposed],
    ['a rule written decomposed (NFD), a path composed (NFC)', decomposed, composed],
  ])('%s: the deny still applies', async (_, ruleSpelling, pathSpelling) => {
    await writeTree(box.ws, { [`${pathSpelling}/x.txt`]: `${secret}\n` });
    const host = box.host({ allow: ['read', 'write'], deny: [`read(${ruleSpelling}/**)`, `write(${ruleSpelling}/**)`] });
    for (const [tool, args] of [
      ['read_file', { path: `${pathSpelling}/x.txt` }],
      ['edit_file', { path: `${pathSpelling}/x.txt`, edits: [{ old: secret, new: 'pwned' }] }],
      ['write_file', { path: `${pathSpelling}/new.txt`, content: 'pwned' }],
      ['search_files', { pattern: secret, path: pathSpelling }],
    ] as const) {
      const result = await invoke(host, tool, args);
      expect(result.error?.kind, tool).toBe('policy_denied');
    }
    const walked = await invoke(host, 'search_files', { pattern: secret });
    expect(walked.output?.data).toMatchObject({ matches: [] });
    expect(await readFile(path.join(box.ws, pathSpelling, 'x.txt'), 'utf8')).toBe(`${secret}\n`);
  });

  it('a hard link to a denied file is refused by read_file, edit_file and search_files', async () => {
    await writeTree(box.ws, { 'secret/key.txt': `${secret}\n` });
    await link(path.join(box.ws, 'secret', 'key.txt'), path.join(box.ws, 'h.txt'));
    const host = box.host({ allow: ['read', 'write'], deny: ['read(secret/**)'] });
    const read = await invoke(host, 'read_file', { path: 'h.txt' });
    expect(read.error?.kind).toBe('policy_denied');
    expect(read.error?.message).toContain('the file has 2 names (hard links)');
    expect((await invoke(host, 'edit_file', { path: 'h.txt', edits: [{ old: secret, new: 'pwned' }] })).error?.kind).toBe('policy_denied');
    expect((await invoke(host, 'search_files', { pattern: secret, path: 'h.txt' })).error?.kind).toBe('policy_denied');
    const walked = await invoke(host, 'search_files', { pattern: 'TOP-SECRET|inside' });
    expect(walked.status).toBe('success');
    expect(JSON.stringify(walked.output?.data)).not.toContain(secret);
    expect(JSON.stringify(walked.output?.data)).toContain('inside b');
    // Writing replaces the name it writes (temp file + rename): the other name keeps its content.
    expect((await invoke(host, 'write_file', { path: 'h.txt', content: 'replaced' })).status).toBe('success');
    expect(await readFile(path.join(box.ws, 'secret', 'key.txt'), 'utf8')).toBe(`${secret}\n`);
  });

  it('a hard-linked file stays readable when no rule keeps back particular paths', async () => {
    await link(path.join(box.ws, 'a.txt'), path.join(box.ws, 'a-again.txt'));
    const host = box.host({ allow: ['read'] });
    expect((await invoke(host, 'read_file', { path: 'a-again.txt' })).output?.text).toBe('inside\n');
  });
});
