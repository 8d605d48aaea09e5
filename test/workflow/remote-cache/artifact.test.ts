import { gzipSync } from 'node:zlib';
import { Header } from 'tar';
import { describe, expect, it } from 'vitest';
import { packArtifact, packedPathProblem, unpackArtifact } from '../../../src/workflow/up-to-date/remote/artifact.js';

/** A tarball written entry by entry, as a hostile cache might serve it. */
function tarball(entries: { path: string; type?: 'File' | 'SymbolicLink' | 'Link' | 'CharacterDevice' | 'FIFO' | 'Directory'; body?: string; linkpath?: string }[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const body = Buffer.from(entry.body ?? '');
    const header = new Header({
      path: entry.path,
      mode: 0o644,
      size: body.length,
      type: entry.type ?? 'File',
      mtime: new Date(0),
      ...(entry.linkpath && { linkpath: entry.linkpath }),
    });
    header.encode();
    blocks.push(header.block!, body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

const record = (files: string[]) => ({ path: 'rho-record.json', body: JSON.stringify({ format: 1, output: 'built', data: { n: 1 }, files }) });

describe('artifacts', () => {
  it('round-trip files, their executable bit, long and non-ASCII names, and the recorded result', async () => {
    const long = `${'d'.repeat(120)}/ünïcode.txt`;
    const packed = packArtifact({
      record: { format: 1, output: 'built', data: { n: 1 }, files: ['bin/tool', long] },
      files: [
        { path: 'bin/tool', bytes: Buffer.from('#!/bin/sh\n'), executable: true },
        { path: long, bytes: Buffer.alloc(700, 1), executable: false },
      ],
    });
    const artifact = await unpackArtifact(packed);
    expect(artifact.record).toEqual({ format: 1, output: 'built', data: { n: 1 }, files: ['bin/tool', long] });
    expect(artifact.files.map((file) => [file.path, file.bytes.length, file.executable])).toEqual([
      ['bin/tool', 10, true],
      [long, 700, false],
    ]);
  });

  it.each([
    ['a path that climbs out', [record(['../x']), { path: 'files/../x', body: 'x' }], 'it leaves the workspace (..)'],
    ['a path that climbs out of the files folder', [record([]), { path: '../files/x', body: 'x' }], 'which is not under files/'],
    ['an absolute path', [record(['/etc/x']), { path: 'files//etc/x', body: 'x' }], 'it is absolute'],
    [
      'a symlink out of the workspace',
      [record(['dist/link']), { path: 'files/dist/link', type: 'SymbolicLink' as const, linkpath: '/etc/passwd' }],
      'of type SymbolicLink (to "/etc/passwd")',
    ],
    ['a hard link', [record(['dist/link']), { path: 'files/dist/link', type: 'Link' as const, linkpath: '/etc/passwd' }], 'of type Link'],
    ['a device', [record(['dist/tty']), { path: 'files/dist/tty', type: 'CharacterDevice' as const }], 'of type CharacterDevice'],
    ['a FIFO', [record(['dist/pipe']), { path: 'files/dist/pipe', type: 'FIFO' as const }], 'of type FIFO'],
    ['a directory entry', [record([]), { path: 'files/dist/', type: 'Directory' as const }], 'of type Directory'],
    ['a file twice', [record(['a']), { path: 'files/a', body: '1' }, { path: 'files/a', body: '2' }], 'twice'],
    ['a file its record does not list', [record([]), { path: 'files/a', body: '1' }], 'not the ones its rho-record.json lists'],
    ['no record first', [{ path: 'files/a', body: '1' }], 'does not start with rho-record.json'],
  ])('are refused whole when they hold %s', async (_name, entries, message) => {
    await expect(unpackArtifact(tarball(entries))).rejects.toThrow(message);
  });

  it('are refused when they are not gzip, or their record is not one rho writes', async () => {
    await expect(unpackArtifact(Buffer.from('not gzip'))).rejects.toThrow('not a gzip stream');
    await expect(unpackArtifact(tarball([{ path: 'rho-record.json', body: '{"format":99}' }]))).rejects.toThrow('is not one this rho writes');
  });

  it('name only plain relative paths as restorable', () => {
    expect(packedPathProblem('dist/app.js')).toBeUndefined();
    for (const bad of ['', 'a/../b', './a', 'a//b', 'C:/x', 'a\\b', 'a\0b']) expect(packedPathProblem(bad)).toBeDefined();
  });
});
