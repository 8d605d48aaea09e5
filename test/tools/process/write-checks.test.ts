import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, realpath, rename, rm, stat, symlink, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { guardedDirectories, narrowWritable, planConfinement, type ConfinementPlan } from '../../../src/host/confinement/index.js';
import { Policy } from '../../../src/host/policy.js';
import type { PathMount } from '../../../src/tools/process/sandbox/backend.js';
import { maxGuardedEntries } from '../../../src/tools/process/sandbox/guarded-directory.js';
import { acquireGuards, type GuardLease } from '../../../src/tools/process/sandbox/guard-locks.js';
import { prepareWriteChecks, type WriteChecks } from '../../../src/tools/process/sandbox/write-checks.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'rho-write-checks-')));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function plan(allow: string[]): ConfinementPlan {
  return planConfinement({ policy: Policy.fromText({ allow }), workspaceRoot: dir, grantedRoots: [], homeDirectories: [] });
}

const at = (relative: string) => path.join(dir, relative);

/** The write checks of one launch of a step (guarded), or of a background process (`guarded: false`); the guards are released after the check. */
async function prepare(granted: ConfinementPlan, guarded = true): Promise<WriteChecks> {
  const directories = guarded ? guardedDirectories(granted) : [];
  const closed = directories.filter((directory) => !directory.open).map((directory) => directory.path);
  const leases: Map<string, GuardLease> = await acquireGuards(
    closed,
    granted.writable.map((root) => root.path),
    undefined,
  );
  const checks = prepareWriteChecks(granted, directories, leases);
  return {
    mounts: checks.mounts,
    check() {
      const undone = checks.check();
      for (const lease of leases.values()) lease.release();
      return undone;
    },
  };
}

/** Each mount as `write|read relative-path`, with `?` after the access of one made only where the path exists. */
function described(mounts: readonly PathMount[]): string[] {
  return mounts.map((mount) => `${mount.writable ? 'write' : 'read'}${mount.ifPresent ? '?' : ''} ${path.relative(dir, mount.path) || '.'}`);
}

describe('guarded directories (what the sandbox mounts and checks)', () => {
  it('binds the directory writable and every entry no root grants read-only over itself; a symlink is compared instead', async () => {
    await mkdir(at('src'));
    await writeFile(at('README'), 'hi\n');
    await mkdir(at('dist'));
    await symlink('src', at('current'));
    const checks = await prepare(plan(['write(dist/**)', 'write(app.db)']));
    expect(described(checks.mounts).sort()).toEqual(['write .', 'read? README', 'read? src'].sort());
    expect(checks.check()).toEqual([]);
  });

  it('removes what was created beside the granted roots and puts back what was changed, leaving the granted names alone', async () => {
    await mkdir(at('src'));
    await symlink('src', at('current'));
    await symlink('src', at('old'));
    const mode = (await stat(dir)).mode & 0o7777;
    const checks = await prepare(plan(['write(dist/**)', 'write(app.db)']));
    // What a process could do in the writable directory.
    await writeFile(at('app.db'), 'data');
    await writeFile(at('app.db-wal'), 'wal');
    await mkdir(at('dist'));
    await writeFile(at('tmp.123'), 'half-written');
    await mkdir(at('junk/locked'), { recursive: true });
    await writeFile(at('junk/locked/file'), 'x');
    await chmod(at('junk/locked'), 0o500);
    await unlink(at('current'));
    await symlink('/etc', at('current'));
    await unlink(at('old'));
    await chmod(dir, 0o777);
    const undone = checks.check();
    expect(undone).toEqual(
      expect.arrayContaining([
        { path: at('tmp.123'), change: 'created', undone: true },
        { path: at('junk'), change: 'created', undone: true },
        { path: at('current'), change: 'changed', undone: true },
        { path: at('old'), change: 'removed', undone: true },
        { path: dir, change: 'permissions', undone: true },
      ]),
    );
    expect(undone).toHaveLength(5);
    expect([existsSync(at('tmp.123')), existsSync(at('junk'))]).toEqual([false, false]);
    expect([readlinkSync(at('current')), readlinkSync(at('old'))]).toEqual(['src', 'src']);
    expect((await stat(dir)).mode & 0o7777).toBe(mode);
    // Granted: the entry, the SQLite file beside it, the tree.
    expect(await readFile(at('app.db-wal'), 'utf8')).toBe('wal');
    expect(existsSync(at('dist'))).toBe(true);
  });

  it('lets a granted root be replaced, by a rename or by a symlink', async () => {
    await writeFile(at('package-lock.json'), 'old');
    const checks = await prepare(plan(['write(package-lock.json)', 'write(result)']));
    await writeFile(at('package-lock.json.1234'), 'new');
    await rename(at('package-lock.json.1234'), at('package-lock.json'));
    await symlink('/nix/store/x', at('result'));
    expect(checks.check()).toEqual([]);
    expect(await readFile(at('package-lock.json'), 'utf8')).toBe('new');
  });

  it('mounts roots on themselves where the directory cannot be guarded: too many entries, or a step that does not wait', async () => {
    for (let index = 0; index <= maxGuardedEntries; index++) await writeFile(at(`f${index}`), '');
    await mkdir(at('dist'));
    expect(described((await prepare(plan(['write(dist/**)']))).mounts)).toEqual(['write? dist']);
    expect(described((await prepare(plan(['write(dist/**)']), false)).mounts)).toEqual(['write? dist']);
  });

  it('never mounts a root that is a symlink on itself: that would mount its target writable', async () => {
    await symlink('/etc', at('dist'));
    expect((await prepare(plan(['write(dist/**)']), false)).mounts).toEqual([]);
  });
});

describe('open guarded directories (a step narrowed inside a policy tree)', () => {
  it('lets what a policy rule grants survive, and still removes a protected place the process could create', async () => {
    await mkdir(at('.git'));
    await mkdir(at('src'));
    const narrowed = narrowWritable(plan(['write(**)']), ['first/**'], dir);
    const checks = await prepare(narrowed);
    // Existing entries stay out of the step's reach: only its root, and new names, are writable.
    expect(described(checks.mounts)).toEqual(expect.arrayContaining(['write .', 'read? .git', 'read? src']));
    await mkdir(at('first'));
    await writeFile(at('notes.txt'), 'write(**) grants it');
    await mkdir(at('.vscode'));
    // Made by someone else inside an entry the process could not change: not its doing, left alone.
    await mkdir(at('.git/hooks'));
    expect(checks.check()).toEqual([{ path: at('.vscode'), change: 'created', runs: expect.stringContaining('VS Code'), undone: true }]);
    expect([existsSync(at('notes.txt')), existsSync(at('.git/hooks'))]).toEqual([true, true]);
  });
});

describe('protected places (what the sandbox mounts and checks)', () => {
  it('mounts an existing place read-only, removes a missing one the process created, and puts a symlink back', async () => {
    await mkdir(at('.git/hooks'), { recursive: true });
    await writeFile(at('.git/config'), '[core]\n');
    await writeFile(at('dotfiles-npmrc'), 'registry=x\n');
    await symlink('dotfiles-npmrc', at('.npmrc'));
    const checks = await prepare(plan(['write(**)']));
    const mounts = described(checks.mounts);
    expect(mounts).toEqual(expect.arrayContaining(['write? .', 'read? .git/hooks', 'read? .git/config', 'read? dotfiles-npmrc']));
    // .git is a directory: only its hooks and config are kept.
    expect(mounts).not.toContain('read? .git');
    await mkdir(at('.vscode'));
    await writeFile(at('.vscode/tasks.json'), '{}');
    await unlink(at('.npmrc'));
    await writeFile(at('.npmrc'), 'node-options=--require ./evil.js\n');
    const undone = checks.check();
    expect(undone).toEqual([
      { path: at('.vscode'), change: 'created', runs: expect.stringContaining('VS Code'), undone: true },
      { path: at('.npmrc'), change: 'changed', runs: expect.stringContaining('npm'), undone: true },
    ]);
    expect(existsSync(at('.vscode'))).toBe(false);
    expect(lstatSync(at('.npmrc')).isSymbolicLink()).toBe(true);
  });

  it('stays read-only inside a directory pinned for rho’s own: the pin is mounted before it, not over it', async () => {
    await mkdir(at('.config/rho'), { recursive: true });
    await mkdir(at('.config/fish'));
    const granted = planConfinement({
      policy: Policy.fromText({ allow: ['write(**)'] }),
      workspaceRoot: dir,
      grantedRoots: [],
      homeDirectories: [],
      privatePaths: [at('.config/rho')],
    });
    const checks = await prepare(granted);
    expect(described(checks.mounts).filter((mount) => mount.endsWith(' .config') || mount.endsWith(' .config/fish'))).toEqual(['write .config', 'read? .config/fish']);
    expect(checks.check()).toEqual([]);
  });

  it('keeps a missing .git from being created where a rule covers it only by a wildcard', async () => {
    const checks = await prepare(plan(['write(**)']));
    await mkdir(at('.git/hooks'), { recursive: true });
    expect(checks.check().map((write) => path.relative(dir, write.path))).toEqual(['.git']);
    expect(existsSync(at('.git'))).toBe(false);
  });
});
