import { mkdir, readFile, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ToolError } from '../../../src/host/errors.js';
import { Workspace } from '../../../src/host/workspace.js';
import { packArtifact } from '../../../src/workflow/up-to-date/remote/artifact.js';
import { RemoteCache, type CacheAuthorizer } from '../../../src/workflow/up-to-date/remote/remote-cache.js';
import type { ArtifactStore, FetchedArtifact } from '../../../src/workflow/up-to-date/remote/turbo-client.js';
import { temporaryDirectories } from '../../support/cli.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());

const call = { id: 'build#0', tool: 'shell', args: {}, stepId: 'build' };
const signal = new AbortController().signal;
const allowAll: CacheAuthorizer = () => Promise.resolve(undefined);

function store(answers: FetchedArtifact[], uploads: string[] = [], readOnly = false): ArtifactStore {
  return {
    place: 'http://cache.test',
    readOnly,
    fetch: () => Promise.resolve(answers.shift() ?? { kind: 'miss' }),
    upload: (hash) => {
      uploads.push(hash);
      return Promise.resolve(undefined);
    },
  };
}

const artifact = (files: { path: string; body: string; executable?: boolean }[]) =>
  packArtifact({
    record: { format: 1, output: 'built', data: { ok: true }, files: files.map((file) => file.path) },
    files: files.map((file) => ({ path: file.path, bytes: Buffer.from(file.body), executable: file.executable ?? false })),
  });

async function cacheIn(answers: FetchedArtifact[], authorize = allowAll, uploads: string[] = [], readOnly = false) {
  const root = await directories.make();
  const warnings: string[] = [];
  const cache = new RemoteCache({ store: store(answers, uploads, readOnly), workspace: await Workspace.create(root), authorize, warn: (line) => warnings.push(line) });
  return { root, cache, warnings };
}

describe('RemoteCache', () => {
  it('restores a hit through the workspace, with the recorded result and the executable bit', async () => {
    const { root, cache, warnings } = await cacheIn([
      {
        kind: 'hit',
        body: artifact([
          { path: 'dist/app.js', body: 'app' },
          { path: 'dist/bin/run', body: '#!', executable: true },
        ]),
      },
    ]);
    const restored = await cache.restore('k', 'build', ['dist/**'], call, signal);
    expect(restored).toEqual({ output: 'built', data: { ok: true }, files: ['dist/app.js', 'dist/bin/run'] });
    expect(await readFile(path.join(root, 'dist/app.js'), 'utf8')).toBe('app');
    expect((await stat(path.join(root, 'dist/bin/run'))).mode & 0o111).not.toBe(0);
    expect(warnings).toEqual([]);
  });

  it('refuses, writing nothing, an artifact with a file its generates: does not name', async () => {
    const { root, cache, warnings } = await cacheIn([
      {
        kind: 'hit',
        body: artifact([
          { path: 'dist/app.js', body: 'app' },
          { path: '.github/workflows/ci.yml', body: 'evil' },
        ]),
      },
    ]);
    expect(await cache.restore('k', 'build', ['dist/**'], call, signal)).toBeUndefined();
    await expect(stat(path.join(root, 'dist'))).rejects.toThrow();
    expect(warnings).toEqual([expect.stringContaining(`".github/workflows/ci.yml", which the step's generates: does not name; the step runs`)]);
  });

  it('refuses, writing nothing, when the policy denies a write', async () => {
    const denyWrites: CacheAuthorizer = (_subject, request) =>
      Promise.resolve(request.class === 'write' ? new ToolError('policy_denied', 'write dist/app.js needs write(dist/app.js)') : undefined);
    const { root, cache, warnings } = await cacheIn([{ kind: 'hit', body: artifact([{ path: 'dist/app.js', body: 'app' }]) }], denyWrites);
    expect(await cache.restore('k', 'build', ['dist/**'], call, signal)).toBeUndefined();
    await expect(stat(path.join(root, 'dist/app.js'))).rejects.toThrow();
    expect(warnings).toEqual([expect.stringContaining('is refused: write dist/app.js needs write(dist/app.js); the step runs')]);
  });

  it('refuses a file that a symlink in the workspace would carry outside it', async () => {
    const { root, cache, warnings } = await cacheIn([{ kind: 'hit', body: artifact([{ path: 'dist/app.js', body: 'app' }]) }]);
    const outside = await directories.make();
    await symlink(outside, path.join(root, 'dist'));
    expect(await cache.restore('k', 'build', ['dist/**'], call, signal)).toBeUndefined();
    await expect(stat(path.join(outside, 'app.js'))).rejects.toThrow();
    expect(warnings).toHaveLength(1);
  });

  it('warns about a corrupt artifact and lets the step run', async () => {
    const { cache, warnings } = await cacheIn([{ kind: 'hit', body: Buffer.from('corrupt') }]);
    expect(await cache.restore('abcdef0123456789', 'build', ['dist/**'], call, signal)).toBeUndefined();
    expect(warnings).toEqual([expect.stringMatching(/^rho: step build: the remote cache's artifact abcdef012345 is refused: it is not a gzip stream .*; the step runs$/)]);
  });

  it('after a lasting failure says so once and asks the server nothing more; a passing one is said per step', async () => {
    const passing = { kind: 'failed' as const, problem: { reason: 'the server answered HTTP 503', lasting: false } };
    const lasting = { kind: 'failed' as const, problem: { reason: 'the server refused the token (HTTP 401)', lasting: true } };
    const answers: FetchedArtifact[] = [passing, lasting, { kind: 'hit', body: artifact([{ path: 'dist/a', body: 'a' }]) }];
    const { cache, warnings } = await cacheIn(answers);
    for (const step of ['one', 'two', 'three']) expect(await cache.restore('k', step, ['dist/**'], call, signal)).toBeUndefined();
    expect(answers).toHaveLength(1);
    expect(warnings).toEqual([
      'rho: step one: remote cache http://cache.test: reading failed: the server answered HTTP 503; the step runs as it would without a cache',
      'rho: remote cache http://cache.test: reading failed: the server refused the token (HTTP 401); the rest of this run does without it, and every step runs as it would without a cache',
    ]);
  });

  it('uploads what a step generated unless read-only, and waits for uploads to settle', async () => {
    const uploads: string[] = [];
    const { root, cache } = await cacheIn([], allowAll, uploads);
    await mkdir(path.join(root, 'dist'));
    await import('node:fs/promises').then((fs) => fs.writeFile(path.join(root, 'dist/a'), 'a'));
    cache.upload('key-1', 'build', ['dist/a'], call, { output: '', data: null, durationMs: 5 }, signal);
    await cache.settle();
    expect(uploads).toEqual(['key-1']);

    const readOnlyUploads: string[] = [];
    const readOnly = await cacheIn([], allowAll, readOnlyUploads, true);
    readOnly.cache.upload('key-2', 'build', [], call, { output: '', data: null, durationMs: 5 }, signal);
    await readOnly.cache.settle();
    expect(readOnlyUploads).toEqual([]);
  });
});
