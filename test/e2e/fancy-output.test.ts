import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cliPath, makeTempDir, writeFiles } from '../support/cli.js';
import { waitFor } from '../support/wait-for.js';

/** What a person sees at a terminal (tmux) once a run is over: what steps printed, their times, their decisions. */
const socket = `rho-fancy-output-${process.pid}`;
const cleanups: (() => Promise<void>)[] = [];
let socketPath: string | undefined;

const tmux = (...args: string[]) => execa('tmux', ['-L', socket, ...args]);
const screen = async (session: string) => (await tmux('capture-pane', '-p', '-t', session)).stdout;

afterAll(async () => {
  await tmux('kill-server').catch(() => undefined);
  if (socketPath) await rm(socketPath, { force: true });
  for (const cleanup of cleanups) await cleanup();
});

const node = JSON.stringify(process.execPath);
const workflow = `version: 1
name: fancy output
policy:
  allow: [process, "read(**)"]
  ask: ["write(**)"]
  deny: ["read(secret.txt)"]
steps:
  - { id: hello, name: Says hello, tool: echo, with: { value: "Hello, world!" } }
  - { id: slow, name: Takes a while, tool: exec, with: { command: ${node}, args: ["-e", "console.log('slow start'); setTimeout(() => console.log('slow done'), 1500)"] } }
  - { id: quick, name: Quick, tool: exec, with: { command: ${node}, args: ["-e", "console.log('quick \\\\u001b[31mred\\\\u001b[0m')"] } }
  - { id: written, name: Writes, tool: write_file, with: { path: out.txt, content: hi } }
  - { id: refused, name: Refused, tool: read_file, with: { path: secret.txt }, continue_on_error: true }
  - id: broken
    name: Breaks
    tool: exec
    with: { command: ${node}, args: ["-e", "for (let i = 1; i <= 8; i++) console.log('out ' + i); console.error('the reason'); process.exit(3)"] }
  - { id: never, name: Never runs, tool: echo, with: { value: late } }
`;

/** Columns a terminal gives a text: the denied sign is drawn two cells wide. */
const columns = (text: string) => [...text].reduce((width, character) => width + (character === '⛔' ? 2 : 1), 0);

describe('rho run --output fancy at a terminal', () => {
  it('keeps what steps printed, their own durations and their decisions on screen after the run', { timeout: 120_000 }, async () => {
    const { dir, cleanup } = await makeTempDir('rho-fancy-output-');
    cleanups.push(cleanup);
    await writeFiles(dir, { 'flow.yml': workflow, 'secret.txt': 'key' });
    const command = `env -u CI -u GITHUB_ACTIONS node ${cliPath} run flow.yml --yes; echo $? > exit-code; sleep 300`;
    await tmux('new-session', '-d', '-s', 'after', '-x', '200', '-y', '60', '-c', dir, command);
    socketPath ??= (await tmux('display-message', '-p', '#{socket_path}')).stdout.trim();

    // While the slow step runs, its first line is on screen and its last is not yet.
    const during = await waitFor(async () => {
      const text = await screen('after');
      return /Takes a while\n\s+› slow start/.test(text) ? text : undefined;
    }, 'the slow step to show its first line');
    expect(during).not.toContain('slow done');

    const code = await waitFor(async () => (existsSync(path.join(dir, 'exit-code')) ? readFile(path.join(dir, 'exit-code'), 'utf8') : undefined), 'the run to end');
    expect(code.trim()).toBe('1');
    const final = await screen('after');
    expect(final).toMatch(/✔ Says hello \[[\d.]+m?s\]\n\s+› Hello, world!/);
    // Each step's own time: the slow one sleeps 1.5 s, so it shows at least that.
    const slow = /✔ Takes a while \[([\d.]+)(m?s)\]\n\s+› slow start\n\s+slow done/.exec(final);
    expect(slow, final).not.toBeNull();
    expect(Number(slow![1]) * (slow![2] === 's' ? 1000 : 1)).toBeGreaterThanOrEqual(1500);
    expect(final).toMatch(/✔ Quick \[[\d.]+m?s\]\n\s+› quick red\n/);
    expect(final).toMatch(/✔ Writes \[[\d.]+m?s\]\n\s+› ✔ allowed by flag: write request #\d+\n\s+approved by --yes: write request "write out\.txt \(new\)"/);
    // A failed step keeps its last five lines under a count of the earlier ones, and how it ended.
    expect(final).toMatch(
      /✖ Breaks \[[\d.]+m?s\]\n\s+› ✖ failure .*exited with code 3 \(expected 0\)\n\s+› … 4 earlier lines\n\s+out 5\n\s+out 6\n\s+out 7\n\s+out 8\n\s+the reason\n/,
    );
    // After the list, everything it printed, then where the whole of it is kept.
    expect(final).toMatch(
      /Everything broken printed before it failed:\n(\[broken\] out \d\n){8}\[broken\] the reason\n\[broken\] ✖ failure .*\n\[broken\] its whole output: \/\S+\/broken\.log\n/,
    );
    // A skipped step is marked skipped, not warned about.
    expect(final).toMatch(/↓ Never runs — skipped: broken failed/);
    expect(final).not.toContain('⚠');
    // The summary's columns line up, the wide denied sign included.
    const rows = final.split('\n').filter((line) => /^ {2}[✔✖⛔↷◌⏹] +(hello|slow|quick|written|refused|broken|never) /.test(line));
    expect(rows).toHaveLength(7);
    const statusColumn = rows.map((row) => columns(row.slice(0, row.search(/ (success|failure|denied|skipped) /))));
    expect(new Set(statusColumn).size, rows.join('\n')).toBe(1);
    expect(rows.find((row) => row.includes('refused'))).toContain('⛔');
  });
  it('counts the lines it skipped while a step ran, and shows all of them after the list when it failed', { timeout: 120_000 }, async () => {
    const { dir, cleanup } = await makeTempDir('rho-fancy-output-');
    cleanups.push(cleanup);
    const printer = "for (let i = 1; i <= 3000; i++) console.log('test ' + i + (i === 1500 ? ' FAILED: expected 29, got 28' : ' ok')); process.exitCode = 1;";
    await writeFiles(dir, {
      'flow.yml': `version: 1
name: big
policy:
  allow: [process]
steps:
  - { id: big, name: Many tests, tool: exec, with: { command: ${node}, args: ["-e", ${JSON.stringify(printer)}] } }
`,
    });
    const command = `env -u CI -u GITHUB_ACTIONS node ${cliPath} run flow.yml --no-logs; echo $? > exit-code; sleep 300`;
    // Scrollback for the whole run: everything the failed step printed is shown after the list.
    await tmux('set-option', '-g', 'history-limit', '20000', ';', 'new-session', '-d', '-s', 'big', '-x', '140', '-y', '40', '-c', dir, command);
    socketPath ??= (await tmux('display-message', '-p', '#{socket_path}')).stdout.trim();
    const code = await waitFor(async () => (existsSync(path.join(dir, 'exit-code')) ? readFile(path.join(dir, 'exit-code'), 'utf8') : undefined), 'the run to end');
    expect(code.trim()).toBe('1');
    const history = (await tmux('capture-pane', '-p', '-S', '-', '-t', 'big')).stdout;
    expect(history).toMatch(
      /✖ Many tests \[[\d.]+m?s\]\n\s+› ✖ failure .*\n\s+› … 2,995 earlier lines\n\s+test 2996 ok\n\s+test 2997 ok\n\s+test 2998 ok\n\s+test 2999 ok\n\s+test 3000 ok\n/,
    );
    const after = history.slice(history.indexOf('Everything big printed before it failed:'));
    const shown = after
      .split('\n')
      .filter((line) => line.startsWith('[big] test '))
      .map((line) => line.slice('[big] '.length));
    expect(shown).toEqual(Array.from({ length: 3000 }, (_, i) => `test ${i + 1}${i === 1499 ? ' FAILED: expected 29, got 28' : ' ok'}`));
  });
});
