import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, describe, expect, it } from 'vitest';
import { cliPath, runCli, temporaryDirectories, writeFiles } from '../support/cli.js';
import { junitSchemaErrors } from '../support/junit-schema.js';
import { waitFor } from '../support/wait-for.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());

const node = JSON.stringify(process.execPath);
// Each writes only its own directory (writes:), so the two run together though the policy lets processes write everywhere.
const sleeper = (id: string, extra = '') =>
  `  - { id: ${id}, tool: exec, writes: ["${id}/**"], with: { command: ${node}, args: ["-e", "require('fs').writeFileSync('${id}/started', ''); setTimeout(() => {}, 60000)"] }${extra} }`;

/** Two steps that run until stopped, then one that never gets an execution slot. */
const longFlow = `version: 1
name: cut
max_parallel: 2
policy:
  allow: [process, "write(**)"]
steps:
${sleeper('first')}
${sleeper('second', ', continue_on_error: true')}
  - { id: never, tool: exec, with: { command: ${node}, args: ["-e", ""] } }
`;

/** Every verdict a run that ends on its own can give. */
const endedFlow = `version: 1
name: ended
max_parallel: 1
policy:
  allow: [process]
steps:
  - { id: passes, tool: echo, with: { value: ok } }
  - id: tolerated
    tool: exec
    continue_on_error: true
    with: { command: ${node}, args: ["-e", "console.error('line one'); console.error('line <two> & three'); process.exit(2)"] }
  - { id: refused, tool: write_file, with: { path: x.txt, content: x }, continue_on_error: true }
  - id: slow
    tool: exec
    timeout: 300ms
    with: { command: ${node}, args: ["-e", "setTimeout(() => {}, 10000)"] }
  - { id: after, tool: echo, with: { value: never } }
`;

interface Case {
  name: string;
  failure?: { type: string; message: string; '#text': string };
  error?: { type: string; message: string; '#text': string };
  skipped?: { type: string; message: string; '#text'?: string };
  'system-out'?: string;
  'system-err'?: string;
}

async function readReport(file: string) {
  const xml = await readFile(file, 'utf8');
  const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => name === 'testcase' || name === 'property' }).parse(xml);
  const suite = parsed.testsuites.testsuite;
  const cases: Record<string, Case> = Object.fromEntries((suite.testcase as Case[]).map((entry) => [entry.name, entry]));
  const properties = Object.fromEntries((suite.properties.property as { name: string; value: string }[]).map((entry) => [entry.name, entry.value]));
  return { xml, suites: parsed.testsuites, suite, cases, properties };
}

describe.concurrent('the JUnit report', () => {
  it('gives each step of a run that ended its verdict and what it printed, valid against the JUnit schema', { timeout: 60_000 }, async () => {
    const dir = await directories.make();
    await writeFiles(dir, { 'flow.yml': endedFlow });
    const result = await runCli(['run', 'flow.yml', '--junit', 'report.xml'], { cwd: dir });
    expect(result.exitCode).toBe(1);
    const report = await readReport(path.join(dir, 'report.xml'));
    expect(await junitSchemaErrors(report.xml)).toEqual([]);
    // An echo step prints nothing of a process's: its testcase holds no output.
    expect(report.cases['passes']).toEqual({ name: 'passes', classname: 'ended.passes', time: expect.any(String) });
    expect(report.cases['tolerated']!.skipped).toMatchObject({
      type: 'continue_on_error',
      message: expect.stringMatching(/^failure tolerated by continue_on_error: .*exited with code 2/),
    });
    expect(report.cases['tolerated']!['system-err']).toBe('line one\nline <two> & three');
    expect(report.cases['tolerated']!['system-out']).toBeUndefined();
    expect(report.cases['refused']!.skipped).toMatchObject({ type: 'continue_on_error', message: expect.stringMatching(/^denied tolerated/) });
    expect(report.cases['slow']!.failure).toMatchObject({ type: 'timeout' });
    expect(report.cases['after']!.skipped).toMatchObject({ type: 'skipped', message: 'slow failed' });
    expect(report.suite).toMatchObject({ tests: '5', failures: '1', errors: '0', skipped: '3' });
    expect(report.suites).toMatchObject({ tests: '5', failures: '1', errors: '0' });
    expect(report.suites.skipped).toBeUndefined();
    expect(report.properties).toEqual({ exit_code: '1' });
  });

  it('reports a run cut off by --timeout (124): running steps are errors, the one never started is skipped with the reason', { timeout: 60_000 }, async () => {
    const dir = await directories.make();
    await writeFiles(dir, { 'flow.yml': longFlow });
    const result = await runCli(['run', 'flow.yml', '--junit', 'report.xml', '--timeout', '2s'], { cwd: dir });
    expect(result.exitCode).toBe(124);
    const report = await readReport(path.join(dir, 'report.xml'));
    expect(await junitSchemaErrors(report.xml)).toEqual([]);
    expect(report.cases['first']!.error).toMatchObject({ type: 'cancelled', message: expect.stringMatching(/^the run timed out \(--timeout\) while it ran/) });
    expect(report.cases['second']!.error).toMatchObject({ type: 'cancelled' });
    expect(report.cases['never']!.skipped).toMatchObject({ message: 'the run timed out' });
    expect(report.suites).toMatchObject({ tests: '3', failures: '0', errors: '2' });
    expect(report.properties).toEqual({ exit_code: '124', stopped: 'the run timed out (--timeout)' });
  });

  it('reports an interrupted run (130) the same way', { timeout: 60_000 }, async () => {
    const dir = await directories.make();
    await writeFiles(dir, { 'flow.yml': longFlow });
    const child = execa('node', [cliPath, 'run', 'flow.yml', '--junit', 'report.xml'], { cwd: dir, env: { CI: 'true' }, stdin: 'ignore', reject: false });
    await waitFor(async () => (existsSync(path.join(dir, 'first/started')) && existsSync(path.join(dir, 'second/started')) ? true : undefined), 'both steps to run');
    child.kill('SIGINT');
    expect((await child).exitCode).toBe(130);
    const report = await readReport(path.join(dir, 'report.xml'));
    expect(await junitSchemaErrors(report.xml)).toEqual([]);
    expect(report.cases['first']!.error).toMatchObject({ message: expect.stringMatching(/^the run was interrupted while it ran/) });
    expect(report.cases['second']!.error).toBeDefined();
    expect(report.cases['never']!.skipped).toMatchObject({ message: 'the run was interrupted' });
    expect(report.suites).toMatchObject({ errors: '2', failures: '0' });
    expect(report.properties).toMatchObject({ exit_code: '130' });
  });
});
