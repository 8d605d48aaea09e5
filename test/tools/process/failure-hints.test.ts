import { mkdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { narrowWritable, planConfinement, type CallConfinement } from '../../../src/host/confinement/index.js';
import { Policy } from '../../../src/host/policy.js';
import { confinementHints } from '../../../src/tools/process/sandbox/failure-hints.js';
import { temporaryDirectories } from '../../support/cli.js';

const temp = temporaryDirectories('rho-failure-hints-');
afterAll(() => temp.removeAll());

let home = '';
let workspace = '';
beforeAll(async () => {
  const base = await realpath(await temp.make());
  home = path.join(base, 'home');
  workspace = path.join(base, 'work');
  await mkdir(home);
  await mkdir(workspace);
});

function confinement(allow: string[], options: { caches?: ('npm' | 'go')[]; writes?: string[] } = {}): CallConfinement {
  const plan = planConfinement({ policy: Policy.fromText({ allow }), workspaceRoot: workspace, grantedRoots: [], homeDirectories: [home], home, caches: options.caches ?? [] });
  const narrowed = options.writes ? narrowWritable(plan, options.writes, workspace, home) : plan;
  return { status: { confined: true, mode: 'auto', backend: 'bubblewrap', location: '/usr/bin/bwrap' }, plan: narrowed, home, ...(options.writes && { narrowed: true }) };
}

describe('what a confined failure says the sandbox kept back', () => {
  it('names the cache that grants a path in the hidden home, by the tool’s own message', () => {
    const output = `npm error code EROFS\nnpm error syscall mkdir\nnpm error path ${home}/.npm/_cacache\nnpm error EROFS: read-only file system, mkdir '${home}/.npm/_cacache'\n`;
    expect(confinementHints(output, confinement([]), workspace)).toEqual([
      '~/.npm/_cacache is in your home, which confined processes cannot see: grant it with policy caches: [npm]',
    ]);
    const go = `go: creating work dir: mkdir ${home}/.cache/go-build: read-only file system`;
    expect(confinementHints(go.replace('read-only', 'Read-only'), confinement([]), workspace)).toEqual([
      '~/.cache/go-build is in your home, which confined processes cannot see: grant it with policy caches: [go]',
    ]);
    const cargo = `error: failed to create directory \`${home}/.cargo/registry/cache/index.crates.io-6f17d22bba15001f\`\n\nCaused by:\n  Read-only file system (os error 30)`;
    expect(confinementHints(cargo, confinement([]), workspace)).toEqual([
      '~/.cargo/registry/cache/index.crates.io-6f17d22bba15001f is in your home, which confined processes cannot see: grant it with policy caches: [cargo]',
    ]);
    expect(confinementHints(`mkdir: cannot create directory ‘${home}/.cache/go-build’: Read-only file system`, confinement([]), workspace)).toEqual([
      '~/.cache/go-build is in your home, which confined processes cannot see: grant it with policy caches: [go]',
    ]);
    // Granted, the same path is not the sandbox's doing.
    expect(confinementHints(output, confinement([], { caches: ['npm'] }), workspace)).toEqual([]);
  });

  it('names a granted root and a rule for another path in the home, reads only there', () => {
    const rustup = `error: could not create home directory: '${home}/.rustup': Read-only file system (os error 30)`;
    expect(confinementHints(rustup, confinement([]), workspace)).toEqual([
      '~/.rustup is in your home, which confined processes cannot see: grant it with policy granted_roots: ["~/.rustup"] and allow: ["write(~/.rustup/**)", outside]',
    ]);
    const missing = `cat: ${home}/.config/gh/hosts.yml: No such file or directory\ncat: ${workspace}/absent: No such file or directory`;
    expect(confinementHints(missing, confinement([]), workspace)).toEqual([
      '~/.config/gh/hosts.yml is in your home, which confined processes cannot see: grant it with policy granted_roots: ["~/.config/gh"] and allow: ["read(~/.config/gh/**)", outside]',
    ]);
  });

  it('names the write rule for a read-only path in the workspace, or the step’s writes: when the policy grants it', () => {
    const output = `/usr/bin/sh: 1: cannot create coverage.txt: Read-only file system\ntouch: cannot touch '${workspace}/dist/app.js': Read-only file system`;
    expect(confinementHints(output, confinement([]), workspace)).toEqual([
      "coverage.txt is read-only to confined processes: grant it with --allow 'write(coverage.txt)'",
      "dist/app.js is read-only to confined processes: grant it with --allow 'write(dist/**)'",
    ]);
    expect(confinementHints(output, confinement(['write(dist/**)', 'write(build/**)'], { writes: ['build/**'] }), workspace)).toEqual([
      "coverage.txt is read-only to confined processes: grant it with --allow 'write(coverage.txt)'",
      "dist/app.js is not in this step's writes:, so it is read-only to it: add dist/** there",
    ]);
  });

  it('says the host’s /tmp is read-only and where to write instead, and stays quiet about what it does not know', () => {
    expect(confinementHints("cannot create '/tmp/build.log': Read-only file system", confinement([]), workspace)).toEqual([
      "/tmp/build.log: the host's /tmp is read-only to confined processes: write to $TMPDIR, a private directory of the step's own",
    ]);
    expect(confinementHints('error: tests failed', confinement([]), workspace)).toEqual([]);
  });
});
