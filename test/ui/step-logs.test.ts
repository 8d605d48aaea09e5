import { mkdir, readdir, readFile, utimes } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileNameOf, removeStaleLogPlaces, StepLogFiles } from '../../src/ui/reports/step-logs.js';
import { temporaryDirectories } from '../support/cli.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());

async function logsIn(base: string) {
  const failures: string[] = [];
  const logs = await StepLogFiles.create(base, { onFailure: (message) => void failures.push(message) });
  return { logs, failures };
}

describe('the step logs of a run', () => {
  it('keep one stream as it was printed, in one file per step', async () => {
    const { logs } = await logsIn(await directories.make());
    const log = logs.open({ stepId: 'build', attempt: 1 })!;
    log.write('stdout', Buffer.from('compiling\npart'));
    log.write('stdout', Buffer.from('ial line\n'));
    log.close();
    expect(path.basename(log.place)).toBe('build.log');
    expect(await readFile(log.place, 'utf8')).toBe('compiling\npartial line\n');
    expect(await readdir(path.dirname(log.place))).toEqual(['build.log']);
  });

  it('interleave two streams whole line by whole line, and keep each apart once both printed', async () => {
    const { logs } = await logsIn(await directories.make());
    const log = logs.open({ stepId: 'test', attempt: 1 })!;
    log.write('stdout', Buffer.from('ok 1\nok 2 and a line not yet ended'));
    log.write('stderr', Buffer.from('warning: slow\n'));
    log.write('stdout', Buffer.from(' now\nok 3\n'));
    log.write('stderr', Buffer.from('bye'));
    log.close();
    const dir = path.dirname(log.place);
    expect((await readdir(dir)).sort()).toEqual(['test.log', 'test.stderr.log', 'test.stdout.log']);
    expect(await readFile(log.place, 'utf8')).toBe('ok 1\nwarning: slow\nok 2 and a line not yet ended now\nok 3\nbye');
    expect(await readFile(path.join(dir, 'test.stdout.log'), 'utf8')).toBe('ok 1\nok 2 and a line not yet ended now\nok 3\n');
    expect(await readFile(path.join(dir, 'test.stderr.log'), 'utf8')).toBe('warning: slow\nbye');
  });

  it('give each attempt of a retried step its own log, and every step id a file name of its own', async () => {
    const { logs } = await logsIn(await directories.make());
    const places = [logs.open({ stepId: 'flaky', attempt: 1 })!, logs.open({ stepId: 'flaky', attempt: 2 })!, logs.open({ stepId: 'test (node=20, os=../..)', attempt: 1 })!];
    for (const log of places) log.close();
    expect(places.map((log) => path.basename(log.place))).toEqual(['flaky.log', 'flaky.attempt-2.log', `${fileNameOf('test (node=20, os=../..)')}.log`]);
    expect(fileNameOf('test (node=20, os=../..)')).toMatch(/^test_node_20_os-[0-9a-f]{8}$/);
    expect(fileNameOf('release/build')).not.toBe(fileNameOf('release_build'));
  });

  it('keep the newest runs of a place, and forget the places of workspaces no run wrote to for long', async () => {
    const root = await directories.make();
    const place = path.join(root, 'work-0123456789ab');
    for (const old of ['2020-01-01T000000Z-00000001', '2020-01-02T000000Z-00000002', '2020-01-03T000000Z-00000003']) await mkdir(path.join(place, old), { recursive: true });
    await mkdir(path.join(place, 'mine'));
    await StepLogFiles.create(place, { keepRuns: 2, onFailure: () => {} });
    const kept = (await readdir(place)).sort();
    expect(kept).toHaveLength(3);
    expect(kept).toContain('mine');
    expect(kept).toContain('2020-01-03T000000Z-00000003');
    const stale = path.join(root, 'gone-ba9876543210');
    await mkdir(stale);
    await utimes(stale, new Date(2020, 0, 1), new Date(2020, 0, 1));
    await removeStaleLogPlaces(root, 30 * 24 * 3600 * 1000);
    expect((await readdir(root)).sort()).toEqual(['work-0123456789ab']);
  });
});
