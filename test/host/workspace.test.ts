import { mkdir, mkdtemp, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolError } from '../../src/host/errors.js';
import { ResolvedPath, Workspace } from '../../src/host/workspace.js';

let base: string;
let ws: string;
let granted: string;
let outside: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'rho-workspace-')));
  [ws, granted, outside] = ['ws', 'granted', 'outside'].map((name) => path.join(base, name)) as [string, string, string];
  await Promise.all([mkdir(ws), mkdir(granted), mkdir(outside)]);
  await writeFile(path.join(ws, 'a.txt'), 'a');
  await writeFile(path.join(granted, 'g.txt'), 'g');
  await writeFile(path.join(outside, 'secret.txt'), 'secret');
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function failure(work: Promise<unknown>): Promise<ToolError> {
  const error = await work.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
}

describe('Workspace.create', () => {
  it('stores the canonical form of a root reached through a symlink', async () => {
    await symlink(ws, path.join(base, 'alias'));
    const workspace = await Workspace.create(path.join(base, 'alias'));
    expect(workspace.root).toBe(ws);
  });

  it.each([
    ['a relative path', 'ws', 'absolute'],
    ['parent traversal', '/tmp/../tmp', 'parent traversal'],
    ['a NUL byte', '/tmp/\0x', 'NUL'],
  ])('refuses %s', async (_, root, reason) => {
    const error = await failure(Workspace.create(root));
    expect(error.kind).toBe('path_refused');
    expect(error.message).toContain(reason);
  });

  it('refuses a file and a missing directory', async () => {
    expect((await failure(Workspace.create(path.join(ws, 'a.txt')))).message).toContain('must be a directory');
    expect((await failure(Workspace.create(path.join(base, 'nope')))).kind).toBe('not_found');
  });

  it('grants roots only when asked, and unrestricted access only explicitly', async () => {
    const plain = await Workspace.create(ws);
    expect((await failure(plain.resolveForRead(path.join(granted, 'g.txt')))).kind).toBe('path_refused');
    const withRoot = await plain.withGrantedRoot(granted);
    expect((await withRoot.resolveForRead(path.join(granted, 'g.txt'))).scope).toBe('granted_root');
    expect(plain.grantedRoots).toEqual([]);
    const open = plain.withUnrestrictedFileAccess();
    expect((await open.resolveForRead(path.join(outside, 'secret.txt'))).scope).toBe('unrestricted');
    expect(plain.unrestricted).toBe(false);
  });
});

describe('rho’s own directories (privatePaths)', () => {
  it('refuse every path in them, for reading and writing, existing or not, through a link, whatever the roots', async () => {
    const own = path.join(ws, '.cache', 'rho');
    await mkdir(own, { recursive: true });
    await writeFile(path.join(own, 'key'), 'k');
    await symlink(own, path.join(ws, 'alias'));
    const workspace = (await Workspace.create(ws, { grantedRoots: [granted], privatePaths: [own] })).withUnrestrictedFileAccess();
    const attempts = [
      () => workspace.resolveForRead('.cache/rho/key'),
      () => workspace.resolveForRead('.cache/rho'),
      () => workspace.resolveForRead('.cache/rho/missing'),
      () => workspace.resolveForRead('alias/key'),
      () => workspace.resolveForWrite('.cache/rho/key'),
      () => workspace.resolveForWrite('.cache/rho/new/file'),
      () => workspace.resolveForRead(path.join(own, 'key')),
    ];
    for (const attempt of attempts) {
      const error = await failure(attempt());
      expect(error.kind).toBe('path_refused');
      expect(error.message).toContain("a directory of rho's own");
    }
    // Beside them, and above them, paths resolve as ever.
    expect((await workspace.resolveForRead('.cache')).entry).toBe('directory');
    expect((await workspace.resolveForWrite('.cache/other')).state).toBe('missing');
    expect(workspace.isPrivate(path.join(own, 'key'))).toBe(true);
    expect(workspace.isPrivate(`${own}-not`)).toBe(false);
    expect((await workspace.withGrantedRoot(outside)).privatePaths).toEqual([own]);
  });

  it('refuse a workspace inside one of them', async () => {
    const error = await failure(Workspace.create(ws, { privatePaths: [base] }));
    expect(error.message).toContain("a directory of rho's own");
  });
});

describe('resolveForRead', () => {
  it('resolves relative paths under the root with scope workspace', async () => {
    const workspace = await Workspace.create(ws);
    const resolved = await workspace.resolveForRead('./a.txt');
    expect(resolved).toMatchObject({
      requested: './a.txt',
      lexical: path.join(ws, 'a.txt'),
      canonical: path.join(ws, 'a.txt'),
      scope: 'workspace',
      root: ws,
      state: 'existing',
      entry: 'file',
      purpose: 'read',
    });
    expect(resolved.relativeToRoot()).toBe('a.txt');
    expect(resolved.identity?.ino).toBeGreaterThan(0);
  });

  it('accepts absolute paths component-wise under the root only', async () => {
    await mkdir(`${ws}-sibling`);
    await writeFile(`${ws}-sibling/x`, 'x');
    const workspace = await Workspace.create(ws);
    expect((await workspace.resolveForRead(path.join(ws, 'a.txt'))).canonical).toBe(path.join(ws, 'a.txt'));
    const error = await failure(workspace.resolveForRead(`${ws}-sibling/x`));
    expect(error.message).toContain('outside the workspace and every granted root');
    await rm(`${ws}-sibling`, { recursive: true });
  });

  it('rebases absolute paths written with the root as the host named it onto the canonical root', async () => {
    await symlink(ws, path.join(base, 'alias'));
    const workspace = await Workspace.create(path.join(base, 'alias'));
    const resolved = await workspace.resolveForRead(path.join(base, 'alias', 'a.txt'));
    expect(resolved.lexical).toBe(path.join(ws, 'a.txt'));
    expect(resolved.scope).toBe('workspace');
  });

  it('rejects parent components even when they would land inside, unless unrestricted', async () => {
    await mkdir(path.join(ws, 'd'));
    const workspace = await Workspace.create(ws);
    const error = await failure(workspace.resolveForRead('d/../a.txt'));
    expect(error.kind).toBe('path_refused');
    expect(error.details['reason']).toContain('parent traversal');
    expect((await workspace.withUnrestrictedFileAccess().resolveForRead('d/../a.txt')).scope).toBe('workspace');
    expect((await workspace.withUnrestrictedFileAccess().resolveForRead('../outside/secret.txt')).scope).toBe('unrestricted');
  });

  it('labels a symlink into a granted root with the granted_root scope', async () => {
    await symlink(path.join(granted, 'g.txt'), path.join(ws, 'to-granted'));
    const workspace = await Workspace.create(ws, { grantedRoots: [granted] });
    const resolved = await workspace.resolveForRead('to-granted');
    expect(resolved.scope).toBe('granted_root');
    expect(resolved.root).toBe(granted);
    expect(resolved.lexical).toBe(path.join(ws, 'to-granted'));
  });

  it('refuses missing targets, loops and links out of scope with typed errors', async () => {
    await symlink(path.join(ws, 'loop'), path.join(ws, 'loop'));
    await symlink(path.join(outside, 'secret.txt'), path.join(ws, 'out'));
    const workspace = await Workspace.create(ws);
    expect((await failure(workspace.resolveForRead('missing.txt'))).kind).toBe('not_found');
    expect((await failure(workspace.resolveForRead('loop'))).details['reason']).toBe('symlink loop');
    const out = await failure(workspace.resolveForRead('out'));
    expect(out.kind).toBe('path_refused');
    expect(out.message).toContain(`resolves to ${path.join(outside, 'secret.txt')}`);
  });

  it('accepts names from scripts that use joiners or ideographic stops', async () => {
    const workspace = await Workspace.create(ws);
    for (const name of ['メモ。txt', 'نامه\u200cها.txt', 'family-\u{1f468}\u200d\u{1f467}.png', 'back\\slash:colon.txt']) {
      expect((await workspace.resolveForWrite(name)).canonical).toBe(path.join(ws, name));
    }
  });

  it('requires a directory when the path ends in a slash', async () => {
    const workspace = await Workspace.create(ws);
    expect((await failure(workspace.resolveForRead('a.txt/'))).kind).toBe('not_found');
    expect((await workspace.resolveForRead('./')).entry).toBe('directory');
  });
});

describe('resolveForWrite', () => {
  it('gives a missing target the nearest existing parent and the missing state', async () => {
    const workspace = await Workspace.create(ws);
    const resolved = await workspace.resolveForWrite('new/deeper/file.txt');
    expect(resolved).toMatchObject({
      canonical: path.join(ws, 'new', 'deeper', 'file.txt'),
      existingAncestor: ws,
      state: 'missing',
      entry: undefined,
      identity: undefined,
      purpose: 'write',
    });
  });

  it('follows an existing symlink to its canonical target inside scope', async () => {
    await symlink('a.txt', path.join(ws, 'link'));
    const workspace = await Workspace.create(ws);
    const resolved = await workspace.resolveForWrite('link');
    expect(resolved.canonical).toBe(path.join(ws, 'a.txt'));
    expect(resolved.lexical).toBe(path.join(ws, 'link'));
  });

  it('refuses dangling links, files used as directories and directory-looking targets', async () => {
    await symlink(path.join(outside, 'new.txt'), path.join(ws, 'dangling'));
    await symlink(path.join(outside, 'gone'), path.join(ws, 'dangling-dir'));
    const workspace = await Workspace.create(ws);
    expect((await failure(workspace.resolveForWrite('dangling'))).message).toContain('dangling symlink');
    expect((await failure(workspace.resolveForWrite('dangling-dir/x'))).message).toContain('dangling symlink in a parent');
    expect((await failure(workspace.resolveForWrite('a.txt/x'))).message).toContain('is not a directory');
    expect((await failure(workspace.resolveForWrite('dir/'))).message).toContain('names a directory');
  });

  it('places a missing path below a link into another root in that root', async () => {
    await symlink(granted, path.join(ws, 'g'));
    await symlink(outside, path.join(ws, 'o'));
    const workspace = await Workspace.create(ws, { grantedRoots: [granted] });
    expect((await workspace.resolveForWrite('g/new.txt')).scope).toBe('granted_root');
    expect((await failure(workspace.resolveForWrite('o/new.txt'))).kind).toBe('path_refused');
  });
});

describe('revalidate', () => {
  it('returns the same object when nothing changed', async () => {
    const workspace = await Workspace.create(ws);
    const resolved = await workspace.resolveForRead('a.txt');
    expect(await workspace.revalidate(resolved)).toBe(resolved);
  });

  it('refuses a file swapped for a symlink out of scope', async () => {
    const workspace = await Workspace.create(ws);
    const resolved = await workspace.resolveForRead('a.txt');
    await rm(path.join(ws, 'a.txt'));
    await symlink(path.join(outside, 'secret.txt'), path.join(ws, 'a.txt'));
    const error = await failure(workspace.revalidate(resolved));
    expect(error.kind).toBe('path_refused');
    expect(error.message).toContain('changed on disk after it was authorized');
  });

  it('refuses a file replaced by another file at the same path', async () => {
    const workspace = await Workspace.create(ws);
    const resolved = await workspace.resolveForRead('a.txt');
    await writeFile(path.join(ws, 'b.txt'), 'b');
    await rename(path.join(ws, 'b.txt'), path.join(ws, 'a.txt'));
    expect((await failure(workspace.revalidate(resolved))).message).toContain('replaced by another file');
  });

  it('refuses a missing write target that appeared, and a parent directory that was replaced', async () => {
    await mkdir(path.join(ws, 'dir'));
    const workspace = await Workspace.create(ws);
    const missing = await workspace.resolveForWrite('new.txt');
    await writeFile(path.join(ws, 'new.txt'), 'surprise');
    expect((await failure(workspace.revalidate(missing))).message).toContain('it now exists');
    const inDir = await workspace.resolveForWrite('dir/new.txt');
    await rename(path.join(ws, 'dir'), path.join(ws, 'old-dir'));
    await mkdir(path.join(ws, 'dir'));
    expect((await failure(workspace.revalidate(inDir))).message).toContain('parent directory was replaced');
  });

  it('refuses a path checked by a workspace that granted more than the one revalidating', async () => {
    const wide = await Workspace.create(ws, { grantedRoots: [granted] });
    const narrow = await Workspace.create(ws);
    const resolved = await wide.resolveForRead(path.join(granted, 'g.txt'));
    expect((await failure(narrow.revalidate(resolved))).kind).toBe('path_refused');
  });
});

describe('ResolvedPath and helpers', () => {
  it('cannot be constructed outside the workspace', () => {
    const forge = () => new ResolvedPath(Symbol('ResolvedPath'), {} as never);
    expect(forge).toThrow(/only by Workspace/);
  });

  it('shows paths relative to the primary root inside it and absolute elsewhere', async () => {
    const workspace = await Workspace.create(ws);
    expect(workspace.showPath(ws)).toBe('.');
    expect(workspace.showPath(path.join(ws, 'd', 'x'))).toBe('d/x');
    expect(workspace.showPath(path.join(outside, 'x'))).toBe(path.join(outside, 'x'));
    expect(workspace.scopeOf(path.join(outside, 'x'))).toBeUndefined();
  });
});
