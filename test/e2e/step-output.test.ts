import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, describe, expect, it } from 'vitest';
import { runnerCommands } from '../support/actions-runner.js';
import { runCliEvents } from '../support/cli-events.js';
import { cliPath, runCli, temporaryDirectories, writeFiles } from '../support/cli.js';
import { junitSchemaErrors } from '../support/junit-schema.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());

const node = JSON.stringify(process.execPath);

/** A test run of 3,000 tests, one of which fails in the middle: its lines say which and why. */
const suite = `const lines = [];
for (let i = 1; i <= 3000; i++) {
  lines.push(i === 1500 ? 'not ok 1500 - parses leap days' : 'ok ' + i + ' - test ' + i);
  if (i === 1500) lines.push('  expected 29, got 28', '  at dates.test.js:15:7');
}
process.stdout.write(lines.join('\\n') + '\\n');
process.stderr.write('1 of 3000 tests failed\\n');
process.exitCode = 1;
`;

const suiteFlow = `version: 1
name: tests
policy:
  allow: [process]
steps:
  - { id: test, name: Unit tests, tool: exec, with: { command: ${node}, args: [suite.mjs] } }
`;

/** The lines a plain or GitHub Actions log shows for one step: its own, prefix removed. */
function stepLines(output: string, stepId: string): string[] {
  const prefix = `[${stepId}] `;
  return output
    .split('\n')
    .filter((line) => line.startsWith(prefix))
    .map((line) => line.slice(prefix.length));
}

const expectedSuiteLines = [
  ...Array.from({ length: 1499 }, (_, i) => `ok ${i + 1} - test ${i + 1}`),
  'not ok 1500 - parses leap days',
  '  expected 29, got 28',
  '  at dates.test.js:15:7',
  ...Array.from({ length: 1500 }, (_, i) => `ok ${i + 1501} - test ${i + 1501}`),
];

async function logsUnder(dir: string): Promise<string[]> {
  const runs = await readdir(dir);
  expect(runs).toHaveLength(1);
  return (await readdir(path.join(dir, runs[0]!))).sort().map((name) => path.join(dir, runs[0]!, name));
}

describe('a step that prints 3,000 lines and fails', () => {
  it('shows every line in plain output, its stderr once, and names the log that holds it all', { timeout: 60_000 }, async () => {
    const dir = await directories.make();
    await writeFiles(dir, { 'flow.yml': suiteFlow, 'suite.mjs': suite });
    const result = await runCli(['run', 'flow.yml', '--logs', 'logs', '--junit', 'report.xml', '--events', 'events.ndjson'], { cwd: dir });
    expect(result.exitCode).toBe(1);
    const lines = stepLines(result.stdout, 'test');
    expect(lines.filter((line) => /^(not )?ok \d+ |^ {2}(expected|at) /.test(line))).toEqual(expectedSuiteLines);
    // The failure says how it ended and where the output is; the stderr line is shown once, as it came.
    expect(result.stdout.split('1 of 3000 tests failed')).toHaveLength(2);
    expect(result.stdout).toMatch(/^\[test\] ✖ failure \([^)]+\): \S+ exited with code 1 \(expected 0\)$/m);
    const [log] = await logsUnder(path.join(dir, 'logs'));
    expect(result.stdout).toContain(`[test] its whole output: ${log}`);
    expect(result.stdout).toMatch(new RegExp(`^First failure: test — \\S+ exited with code 1 \\(expected 0\\)\\n {2}\\[test\\] its whole output: ${log}$`, 'm'));

    // The log holds exactly what the step printed.
    const logged = await readFile(log!, 'utf8');
    expect(logged).toContain(`${expectedSuiteLines.join('\n')}\n`);
    expect(logged).toContain('1 of 3000 tests failed\n');
    expect(await logsUnder(path.join(dir, 'logs'))).toEqual([
      path.join(path.dirname(log!), 'test.log'),
      path.join(path.dirname(log!), 'test.stderr.log'),
      path.join(path.dirname(log!), 'test.stdout.log'),
    ]);
    expect(await readFile(path.join(path.dirname(log!), 'test.stdout.log'), 'utf8')).toBe(`${expectedSuiteLines.join('\n')}\n`);
    expect(await readFile(path.join(path.dirname(log!), 'test.stderr.log'), 'utf8')).toBe('1 of 3000 tests failed\n');

    // JUnit: the failing test's lines in system-out, the summary in system-err.
    const xml = await readFile(path.join(dir, 'report.xml'), 'utf8');
    expect(await junitSchemaErrors(xml)).toEqual([]);
    const testcase = new XMLParser({ ignoreAttributes: false }).parse(xml).testsuites.testsuite.testcase;
    expect(testcase['system-out']).toBe(expectedSuiteLines.join('\n'));
    expect(testcase['system-err']).toBe('1 of 3000 tests failed');
    expect(testcase.failure['@_message']).toMatch(/exited with code 1 \(expected 0\)$/);

    // The events carry every line too, and name the log.
    const events = (await readFile(path.join(dir, 'events.ndjson'), 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const printed = events.filter((event) => event['type'] === 'step_progress' && event['stream'] === 'stdout').flatMap((event) => String(event['message']).split('\n'));
    expect(printed).toEqual(expectedSuiteLines);
    expect(events.find((event) => event['type'] === 'step_finished')).toMatchObject({ status: 'failure', log });
  });

  it('shows every line in its GitHub Actions group, where none can act as a command', { timeout: 60_000 }, async () => {
    const dir = await directories.make();
    await writeFiles(dir, { 'flow.yml': suiteFlow, 'suite.mjs': suite, 'summary.md': '' });
    const result = await runCli(['run', 'flow.yml', '--no-logs'], { cwd: dir, env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: path.join(dir, 'summary.md') } });
    expect(result.exitCode).toBe(1);
    expect(runnerCommands(result.stdout).map((command) => command.name)).toEqual(['group', 'endgroup', 'error']);
    const group = result.stdout.slice(result.stdout.indexOf('::group::Unit tests'), result.stdout.indexOf('::endgroup::'));
    expect(stepLines(group, 'test').filter((line) => /^(not )?ok \d+ |^ {2}(expected|at) /.test(line))).toEqual(expectedSuiteLines);
    expect(group.split('1 of 3000 tests failed')).toHaveLength(2);
    expect(result.stdout).toMatch(/^::error title=rho%3A step test failure,file=flow\.yml,line=\d+::\S+ exited with code 1 \(expected 0\)$/m);
  });
});

/** Every way a process's bytes could act on a terminal or on the GitHub Actions runner, printed on both streams. */
const loud = `const esc = '\\u001b';
const bel = '\\u0007';
const text = [
  'abc\\u0000def ' + esc + '[31mred' + esc + '[0m ' + esc + ']0;window title' + bel + ' bell' + bel,
  'clip ' + esc + ']52;c;cm0gLXJmIH4=' + bel + ' link ' + esc + ']8;;https://evil.example' + esc + '\\\\here' + esc + ']8;;' + esc + '\\\\ dcs ' + esc + 'P+q544e' + esc + '\\\\',
  'cursor ' + esc + '[2J' + esc + '[H' + esc + '[1A' + esc + '[2K c1 \\u009b31m \\u009d0;t\\u009c bidi a\\u202eb',
  'x ##[add-mask]VALUE-SECRET',
  'hidden\\r::set-output name=a::b',
  '\\u0085::add-mask::after-next-line',
  'shown\\roverwritten',
].join('\\n');
process.stdout.write(text + '\\n');
process.stderr.write(text + '\\n');
`;
const hostileFlow = `version: 1
name: hostile
policy:
  allow: [process]
steps:
  - { id: loud, tool: exec, with: { command: ${node}, args: [loud.mjs] } }
`;

/** Characters that act on a terminal: every control character but line feed, and the C1 controls. */
const actsOnTerminal = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/;

describe('bytes a process prints', () => {
  it('reach a plain log as text: no control character, no escape sequence, no colour', { timeout: 60_000 }, async () => {
    const dir = await directories.make();
    await writeFiles(dir, { 'flow.yml': hostileFlow, 'loud.mjs': loud });
    const result = await runCli(['run', 'flow.yml', '--logs', 'logs'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    for (const stream of [result.stdout, result.stderr]) expect(stream).not.toMatch(actsOnTerminal);
    const lines = stepLines(result.stdout, 'loud');
    expect(lines).toContain('abc\\u{0}def red \\e]0;window title\\u{7} bell\\u{7}');
    expect(lines).toContain('clip \\e]52;c;cm0gLXJmIH4=\\u{7} link \\e]8;;https://evil.example\\e\\here\\e]8;;\\e\\ dcs \\eP+q544e\\e\\');
    expect(lines).toContain('cursor \\e[2J\\e[H\\e[1A\\e[2K c1 \\u{9b}31m \\u{9d}0;t\\u{9c} bidi a\\u{202e}b');
    // A carriage return ends a line: nothing after it overwrites what came before.
    expect(lines).toEqual(expect.arrayContaining(['shown', 'overwritten', 'hidden', '::set-output name=a::b']));
    // The log keeps the bytes as they were printed.
    const [log] = await logsUnder(path.join(dir, 'logs'));
    expect(await readFile(log!, 'utf8')).toContain('\u001b]0;window title\u0007');
  });

  it('can become no GitHub Actions command, in either form, after a carriage return or mid-line; colours pass there', { timeout: 60_000 }, async () => {
    const dir = await directories.make();
    await writeFiles(dir, { 'flow.yml': hostileFlow, 'loud.mjs': loud, 'summary.md': '' });
    const env = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: path.join(dir, 'summary.md'), NO_COLOR: '' };
    const result = await runCli(['run', 'flow.yml', '--no-logs'], { cwd: dir, env });
    expect(result.exitCode).toBe(0);
    expect(runnerCommands(result.stdout).map((command) => command.name)).toEqual(['group', 'endgroup']);
    expect(runnerCommands(result.stderr)).toEqual([]);
    expect(result.stdout).toContain('[loud] x ##[\\add-mask]VALUE-SECRET');
    expect(result.stdout).toContain('\u001b[31mred\u001b[0m');
    expect(result.stdout.replace(/\u001b\[[0-9;]*m/g, '')).not.toMatch(actsOnTerminal);
    // NO_COLOR takes them away there too.
    const plain = await runCli(['run', 'flow.yml', '--no-logs'], { cwd: dir, env: { ...env, NO_COLOR: '1' } });
    expect(plain.stdout).not.toMatch(actsOnTerminal);
  });

  it('reach the events as JSON that means the same and holds no raw control character', { timeout: 60_000 }, async () => {
    const dir = await directories.make();
    await writeFiles(dir, { 'flow.yml': hostileFlow, 'loud.mjs': loud });
    const result = await runCliEvents(['run', 'flow.yml', '--no-logs'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).not.toMatch(actsOnTerminal);
    const printed = result.events.flatMap((event) => (event.type === 'step_progress' && event.stream === 'stdout' ? [event.message] : [])).join('\n');
    expect(printed).toContain('\u001b]52;c;cm0gLXJmIH4=\u0007');
    expect(printed).toContain('\u009b31m');
    expect(printed).toContain('x ##[add-mask]VALUE-SECRET');
  });
});

describe('the bound on what a step shows', () => {
  const chatty = `version: 1
name: chatty
policy:
  allow: [process]
steps:
  - id: chatty
    tool: exec
    with: { command: ${node}, args: ["-e", "for (let i = 1; i <= 1000; i++) console.log('line ' + String(i).padStart(4, '0'))"] }
`;

  it('stops on a whole line, and one line says how much was left out and where all of it is', { timeout: 60_000 }, async () => {
    const dir = await directories.make();
    await writeFiles(dir, { 'flow.yml': chatty });
    const result = await runCli(['run', 'flow.yml', '--output-limit', '1KiB', '--logs', 'logs', '--junit', 'report.xml'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    const lines = stepLines(result.stdout, 'chatty');
    // 10 bytes a line: 102 whole lines fit in 1,024 bytes.
    expect(lines.filter((line) => line.startsWith('line '))).toEqual(Array.from({ length: 102 }, (_, i) => `line ${String(i + 1).padStart(4, '0')}`));
    const [log] = await logsUnder(path.join(dir, 'logs'));
    const omission = `… 898 more lines (8.8 KiB) not shown: past the 1 KiB of output a step shows (--output-limit); all of it is in ${log}`;
    expect(lines).toContain(omission);
    expect((await readFile(log!, 'utf8')).split('\n')).toHaveLength(1001);
    const xml = await readFile(path.join(dir, 'report.xml'), 'utf8');
    expect(new XMLParser().parse(xml).testsuites.testsuite.testcase['system-out']).toMatch(
      new RegExp(`^line 0001\\n[^]*\\nline 0102\\n${omission.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
    );
  });

  it('says when nothing kept the rest (--no-logs), and takes no bound for none', { timeout: 60_000 }, async () => {
    const dir = await directories.make();
    await writeFiles(dir, { 'flow.yml': chatty });
    const cut = await runCli(['run', 'flow.yml', '--output-limit', '100', '--no-logs'], { cwd: dir });
    expect(stepLines(cut.stdout, 'chatty')).toContain(
      '… 990 more lines (9.7 KiB) not shown: past the 100 bytes of output a step shows (--output-limit); logs are off (--no-logs), so it was not kept',
    );
    const whole = await runCli(['run', 'flow.yml', '--output-limit', 'none', '--no-logs'], { cwd: dir });
    expect(stepLines(whole.stdout, 'chatty').filter((line) => line.startsWith('line '))).toHaveLength(1000);
    const wrong = await runCli(['run', 'flow.yml', '--output-limit', 'lots'], { cwd: dir });
    expect([wrong.exitCode, wrong.stderr.trim()]).toEqual([2, 'rho: --output-limit: "lots" is not a size; write bytes with a unit (10MiB, 500KB, 1GiB) or none for no limit']);
  });

  it('with none, loses no line when the output comes faster than the events are written: the step waits instead', { timeout: 60_000 }, async () => {
    const dir = await directories.make();
    // About 30 MB in one burst: more than the events a reader may be behind by (1,024 of up to 16 KiB each).
    const count = 4_000_000;
    await writeFiles(dir, {
      'flow.yml': `version: 1\nname: burst\npolicy:\n  allow: ["process(seq)"]\nsteps:\n  - { id: burst, tool: exec, with: { command: seq, args: ["${count}"] } }\n`,
    });
    const result = await runCli(['run', 'flow.yml', '--output', 'json', '--output-limit', 'none', '--logs', 'logs', '--sandbox', 'off'], { cwd: dir });
    expect(result.exitCode, result.stderr).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const progress = events.filter((event) => event['type'] === 'step_progress');
    expect(progress.filter((event) => event['stream'] === undefined)).toEqual([]);
    const printed = progress.flatMap((event) => String(event['message']).split('\n'));
    expect(printed).toHaveLength(count);
    expect(printed[0]).toBe('1');
    expect(printed.at(-1)).toBe(String(count));
  });
});

describe('a report that cannot be written while the run goes on', () => {
  const quiet = `version: 1
name: quiet
steps:
  - { id: one, tool: echo, with: { value: one } }
`;

  it.each([
    ['--events', 'the events file (--events)'],
    ['--junit', 'the JUnit report (--junit)'],
  ])('%s /dev/full is reported as what it is, with its own exit code', { timeout: 60_000 }, async (flag, what) => {
    const dir = await directories.make();
    await writeFiles(dir, { 'flow.yml': quiet });
    const result = await runCli(['run', 'flow.yml', flag, '/dev/full', '--no-logs'], { cwd: dir });
    expect(result.stdout).toContain('Result: exit 0 (1 success)');
    expect(result.stderr.trim()).toBe(`rho: could not write ${what} to /dev/full: the disk is full (ENOSPC); what was written before is complete, the rest is lost`);
    expect(result.exitCode).toBe(74);
  });

  it('keeps the events written before the disk filled whole, as valid NDJSON', { timeout: 60_000 }, async () => {
    const dir = await directories.make();
    const steps = Array.from({ length: 300 }, (_, i) => `  - { id: s${i}, tool: echo, with: { value: "${'x'.repeat(100)}" } }`).join('\n');
    await writeFiles(dir, { 'flow.yml': `version: 1\nname: many\nsteps:\n${steps}\n`, 'reports/.keep': '' });
    // A 32 KiB file system for the events file: it fills while the run goes on.
    const inside = `node ${cliPath} run flow.yml --events reports/events.ndjson --no-logs > out.txt 2> err.txt; echo $? > code; cp reports/events.ndjson events.copy`;
    await execa('bwrap', ['--dev-bind', '/', '/', '--size', '32768', '--tmpfs', path.join(dir, 'reports'), 'sh', '-c', inside], { cwd: dir, env: { CI: 'true' } });
    expect((await readFile(path.join(dir, 'code'), 'utf8')).trim()).toBe('74');
    expect(await readFile(path.join(dir, 'err.txt'), 'utf8')).toContain('could not write the events file (--events) to reports/events.ndjson: the disk is full (ENOSPC)');
    const lines = (await readFile(path.join(dir, 'events.copy'), 'utf8')).split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.length).toBeGreaterThan(10);
    expect(lines.map((line) => (JSON.parse(line) as { seq: number }).seq)).toEqual(lines.map((_, index) => index + 1));
  });

  it('reports step logs that fill their disk once, keeps the run going, and exits 74 for a --logs DIR', { timeout: 60_000 }, async () => {
    const dir = await directories.make();
    const flow = `version: 1\nname: big\npolicy:\n  allow: [process]\nsteps:\n  - { id: big, tool: exec, with: { command: ${node}, args: ["-e", "console.log('x'.repeat(100000))"] } }\n  - { id: after, tool: echo, with: { value: still runs } }\n`;
    await writeFiles(dir, { 'flow.yml': flow, 'reports/.keep': '' });
    const inside = `node ${cliPath} run flow.yml --logs reports > out.txt 2> err.txt; echo $? > code`;
    await execa('bwrap', ['--dev-bind', '/', '/', '--size', '32768', '--tmpfs', path.join(dir, 'reports'), 'sh', '-c', inside], { cwd: dir, env: { CI: 'true' } });
    expect((await readFile(path.join(dir, 'code'), 'utf8')).trim()).toBe('74');
    const warnings = (await readFile(path.join(dir, 'err.txt'), 'utf8')).trim().split('\n');
    expect(warnings).toEqual([expect.stringMatching(/^rho: could not write the step logs in .*reports\/\S+: the disk is full \(ENOSPC\); later output is not logged$/)]);
    const out = await readFile(path.join(dir, 'out.txt'), 'utf8');
    expect(out).toContain('[after] still runs');
    expect(out).toContain('Result: exit 0 (2 success)');
  });
});

describe('a workflow file that is not UTF-8', () => {
  it('is a validation problem at the byte that starts no character', { timeout: 60_000 }, async () => {
    const dir = await directories.make();
    await writeFile(path.join(dir, 'flow.yml'), Buffer.concat([Buffer.from('version: 1\nname: bad'), Buffer.from([0xff, 0xfe]), Buffer.from('\nsteps: []\n')]));
    for (const command of [
      ['validate', 'flow.yml'],
      ['run', 'flow.yml'],
    ]) {
      const result = await runCli(command, { cwd: dir });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain('flow.yml:2:10: the file is not UTF-8 text: byte 0xff here starts no character; save the file as UTF-8');
      expect(result.stdout).not.toContain('bad');
    }
  });
});
