import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cliPath, makeTempDir, repoRoot, writeFiles } from '../support/cli.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A person at a terminal answers an MCP server's form: the built CLI runs in a pseudo-terminal
 * (tmux), the test server asks for a name, an integer from 1 to 150 and a secret token, and the
 * test types into the enquirer prompts rho builds from that schema. The step's output (the
 * server echoes the answers) shows the secret as ***.
 */
const socket = `rho-elicitation-e2e-${process.pid}`;
const server = path.join(repoRoot, 'test/extensions/fixtures/notes-server.mjs');
const cleanups: (() => Promise<void>)[] = [];
let socketPath: string | undefined;

const tmux = (...args: string[]) => execa('tmux', ['-L', socket, ...args]);
const screen = async (session: string) => (await tmux('capture-pane', '-p', '-t', session)).stdout;
const onScreen = (session: string, text: string) => waitFor(async () => ((await screen(session)).includes(text) ? true : undefined), `"${text}" on screen`);

afterAll(async () => {
  await tmux('kill-server').catch(() => undefined);
  if (socketPath) await rm(socketPath, { force: true });
  for (const cleanup of cleanups) await cleanup();
});

describe('an MCP server’s form at a terminal', () => {
  it('shows each field as a prompt, checks the bounds as the person types, masks the secret', { timeout: 120_000 }, async () => {
    const { dir, cleanup } = await makeTempDir('rho-elicitation-');
    cleanups.push(cleanup);
    await writeFiles(dir, {
      'flow.yml': `version: 1
name: form
tools:
  - mcp: { name: notes, command: [node, ${server}], args: [--elicit] }
policy:
  allow: ["process(node ${server})", "network_tool(notes.*)", "write(answer.txt)"]
steps:
  - id: ask
    tool: notes.ask
  - id: keep
    tool: write_file
    with: { path: answer.txt, content: "\${{ steps.ask.output }}" }
  - id: show
    tool: echo
    with: { value: "server got \${{ steps.ask.output }}" }
`,
    });
    const session = 'form';
    const command = `env -u CI -u GITHUB_ACTIONS node ${cliPath} run flow.yml --output plain; echo $? > exit-code; sleep 300`;
    await tmux('new-session', '-d', '-s', session, '-x', '150', '-y', '45', '-c', dir, command);
    socketPath ??= (await tmux('display-message', '-p', '#{socket_path}')).stdout.trim();
    const keys = async (...sent: string[]) => {
      for (const key of sent) await tmux('send-keys', '-t', session, key);
    };
    await onScreen(session, 'Your name');
    await keys('-l', 'Ada');
    await keys('Enter');
    await onScreen(session, 'Your age');
    await keys('-l', '200');
    await keys('Enter');
    await onScreen(session, 'at most 150');
    await keys('BSpace', 'BSpace', 'BSpace');
    await keys('-l', '36');
    await keys('Enter');
    await onScreen(session, 'A token');
    await keys('-l', 'hunter2-secret');
    await keys('Enter');
    const code = await waitFor(async () => (existsSync(path.join(dir, 'exit-code')) ? readFile(path.join(dir, 'exit-code'), 'utf8') : undefined), 'the run to end');
    expect(Number(code.trim())).toBe(0);
    const answer = JSON.parse(await readFile(path.join(dir, 'answer.txt'), 'utf8')) as { action: string; content: Record<string, unknown> };
    // The server gets the typed answers (the secret too); what rho shows has the secret masked.
    expect(answer).toEqual({ action: 'accept', content: { name: 'Ada', age: 36, token: 'hunter2-secret' } });
    const shown = await screen(session);
    expect(shown).toContain('"token":"***"');
    expect(shown).not.toContain('hunter2-secret');
  });
});
