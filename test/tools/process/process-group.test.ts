import { describe, expect, it } from 'vitest';
import { ProcessGroup, type ProcessLaunch } from '../../../src/tools/process/process-group.js';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

function nodeLaunch(source: string, stdin?: string): ProcessLaunch {
  return { file: process.execPath, args: ['-e', source], cwd: process.cwd(), env, stdin };
}

describe('ProcessGroup', () => {
  it('lets pipes nobody reads flow, so a child writing more than a pipe holds still finishes', async () => {
    const group = await ProcessGroup.spawn(nodeLaunch("const big = 'x'.repeat(1 << 20); process.stdout.write(big); process.stderr.write(big);"));
    await expect(group.finished).resolves.toEqual({ exitCode: 0, signal: null });
  });

  it('delivers stdin text, and a child that exits without reading it is not a failure', async () => {
    const echo = await ProcessGroup.spawn(nodeLaunch('process.stdin.pipe(process.stdout)', 'hello\n'));
    const chunks: Buffer[] = [];
    echo.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    await expect(echo.finished).resolves.toEqual({ exitCode: 0, signal: null });
    expect(Buffer.concat(chunks).toString()).toBe('hello\n');

    const deaf = await ProcessGroup.spawn(nodeLaunch('process.exit(3)', 'y'.repeat(4 << 20)));
    await expect(deaf.finished).resolves.toEqual({ exitCode: 3, signal: null });
  });

  it('gives a child without stdin text the null device as its stdin, never an inherited one', async () => {
    const group = await ProcessGroup.spawn(
      nodeLaunch("const fs = require('node:fs'); process.stdout.write(`${fs.readFileSync(0).length} ${fs.fstatSync(0).isCharacterDevice()}`)"),
    );
    const chunks: Buffer[] = [];
    group.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    await expect(group.finished).resolves.toEqual({ exitCode: 0, signal: null });
    expect(Buffer.concat(chunks).toString()).toBe('0 true');
  });

  it('reports a program that cannot start as a typed error naming it and the reason', async () => {
    const missing = { file: '/nonexistent/rho-test-program', args: [], cwd: process.cwd(), env, stdin: undefined };
    await expect(ProcessGroup.spawn(missing)).rejects.toMatchObject({
      kind: 'execution_failed',
      message: expect.stringMatching(/^could not start \/nonexistent\/rho-test-program: .*ENOENT/),
    });
  });
});
