import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, describe, expect, it } from 'vitest';
import { cliPath, runCli, writeFiles, temporaryDirectories } from '../support/cli.js';
import { eventLineValidator } from '../support/event-schema.js';

const directories = temporaryDirectories();
const tempDir = () => directories.make();
afterAll(() => directories.removeAll());

const secret = 'canary-Secret-value-42';
const flow = `version: 1
name: outputs
secrets: [CANARY]
policy:
  allow: [read]
steps:
  - id: ok
    name: Says hello
    tool: echo
    with: { value: "hello \${{ secrets.CANARY }}" }
  - id: denied
    tool: write_file
    continue_on_error: true
    with: { path: out.txt, content: "\${{ secrets.CANARY }}" }
  - id: broken
    tool: read_file
    with: { path: "missing-\${{ secrets.CANARY }}.txt" }
  - id: later
    tool: echo
    with: { value: never }
`;

// Every test has a directory of its own, so they run concurrently: most of their time is CLI start-up.
describe.concurrent('outputs', () => {
  it('writes NDJSON events that match the shipped schema, in order, with secrets masked', async () => {
    const dir = await tempDir();
    await writeFiles(dir, { 'flow.yml': flow });
    const result = await runCli(['run', 'flow.yml', '--output', 'json', '--events', 'events.ndjson'], { cwd: dir, env: { CANARY: secret } });
    expect(result.exitCode).toBe(1);
    const validate = await eventLineValidator();
    const fromStdout = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const fromFile = (await readFile(path.join(dir, 'events.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(fromFile.map((e) => e.type)).toEqual(fromStdout.map((e) => e.type));
    for (const event of fromStdout) expect(validate(event), JSON.stringify(validate.errors)).toBe(true);
    expect(fromStdout.map((e) => e.seq)).toEqual(fromStdout.map((_, i) => i + 1));
    expect(fromStdout[0].type).toBe('run_started');
    expect(fromStdout.at(-1)).toMatchObject({ type: 'run_finished', exitCode: 1, firstFailure: 'broken' });
    const finished = fromStdout.filter((e) => e.type === 'step_finished');
    expect(finished.map((e) => [e.stepId, e.status])).toEqual([
      ['ok', 'success'],
      ['denied', 'denied'],
      ['broken', 'failure'],
      ['later', 'skipped'],
    ]);
    expect(result.stdout + result.stderr).not.toContain(secret);
    expect(result.stderr).toContain('missing-***.txt');
  });

  it('writes a JUnit report with one testcase per step and the right counts', async () => {
    const dir = await tempDir();
    await writeFiles(dir, { 'flow.yml': flow });
    await runCli(['run', 'flow.yml', '--junit', 'report.xml'], { cwd: dir, env: { CANARY: secret } });
    const xml = await readFile(path.join(dir, 'report.xml'), 'utf8');
    expect(xml).not.toContain(secret);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml);
    const suite = parsed.testsuites.testsuite;
    expect(suite).toMatchObject({ name: 'outputs', tests: '4', failures: '1', errors: '0', skipped: '2' });
    expect(suite.testcase.map((c: { name: string }) => c.name)).toEqual(['Says hello', 'denied', 'broken', 'later']);
    expect(suite.testcase[1].skipped).toMatchObject({ type: 'continue_on_error', message: expect.stringMatching(/^denied tolerated by continue_on_error: /) });
    expect(suite.testcase[2].failure.type).toBe('not_found');
    expect(suite.testcase[3].skipped.message).toBe('broken failed');
  });

  it('groups steps, annotates failures and writes the step summary on GitHub Actions', async () => {
    const dir = await tempDir();
    await writeFiles(dir, { 'flow.yml': flow, 'summary.md': '' });
    const result = await runCli(['run', 'flow.yml'], {
      cwd: dir,
      env: { CANARY: secret, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: path.join(dir, 'summary.md') },
    });
    const lines = result.stdout.split('\n');
    expect(lines.filter((line) => line.startsWith('::group::'))).toHaveLength(4);
    expect(lines.filter((line) => line === '::endgroup::')).toHaveLength(4);
    const error = lines.find((line) => line.startsWith('::error '));
    expect(error).toMatch(/^::error title=rho%3A step broken failure,file=flow.yml,line=15::/);
    const summary = await readFile(path.join(dir, 'summary.md'), 'utf8');
    expect(summary).toContain('| ✖ | `broken` | failure |');
    expect(summary).not.toContain(secret);
  });

  it('refuses report targets it cannot write before running anything (exit 2), each with a clear message', { timeout: 60_000 }, async () => {
    const dir = await tempDir();
    await writeFiles(dir, { 'flow.yml': flow, taken: 'a file, not a directory', 'read-only/keep': '', 'summary-dir/keep': '' });
    // A read-only file system as CI meets it: the directory is bound read-only (root ignores mode bits).
    const readOnly = path.join(dir, 'read-only');
    const inReadOnlyMount = (args: string[]) =>
      execa('bwrap', ['--bind', '/', '/', '--dev', '/dev', '--ro-bind', readOnly, readOnly, 'node', cliPath, 'run', 'flow.yml', ...args], {
        cwd: dir,
        env: { CI: 'true', NO_COLOR: '1', CANARY: secret },
        reject: false,
        stdin: 'ignore',
      });
    const cases = [
      {
        result: await inReadOnlyMount(['--junit', 'read-only/report.xml']),
        message: 'rho: cannot write the JUnit report (--junit) to read-only/report.xml: the file system is read-only (EROFS)',
      },
      {
        result: await inReadOnlyMount(['--events', 'read-only/sub/events.ndjson']),
        message: 'rho: cannot write the events file (--events) to read-only/sub/events.ndjson: the file system is read-only (EROFS)',
      },
      {
        result: await runCli(['run', 'flow.yml', '--junit', 'taken/report.xml'], { cwd: dir, env: { CANARY: secret } }),
        message: /^rho: cannot write the JUnit report \(--junit\) to taken\/report.xml: a parent of it is (a file, )?not a directory \((EEXIST|ENOTDIR)\)$/,
      },
      {
        result: await runCli(['run', 'flow.yml'], { cwd: dir, env: { CANARY: secret, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: path.join(dir, 'summary-dir') } }),
        message: `rho: cannot write the step summary ($GITHUB_STEP_SUMMARY) to ${path.join(dir, 'summary-dir')}: it is a directory (EISDIR)`,
      },
    ];
    for (const { result, message } of cases) {
      expect(result.exitCode, String(result.stderr)).toBe(2);
      expect(String(result.stderr).trim()).toMatch(typeof message === 'string' ? new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : message);
      expect(String(result.stdout)).not.toMatch(/▶|Summary/);
    }
  });

  it('refuses an events file it cannot create before running anything (exit 2)', async () => {
    const dir = await tempDir();
    await writeFiles(dir, { 'flow.yml': flow, taken: 'a file, not a directory' });
    const result = await runCli(['run', 'flow.yml', '--events', 'taken/e.ndjson'], { cwd: dir, env: { CANARY: secret } });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/EEXIST|ENOTDIR/);
    expect(result.stdout).not.toMatch(/▶/);
  });
});
