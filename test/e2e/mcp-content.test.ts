import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliEvents } from '../support/cli-events.js';
import { makeTempDir, repoRoot, writeFiles } from '../support/cli.js';

const server = path.join(repoRoot, 'test/extensions/fixtures/notes-server.mjs');
const secret = 'log-canary-7f3a91';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await makeTempDir()));
afterEach(() => cleanup());

function workflow(steps: string, flag = '--content'): string {
  return `version: 1
name: content
secrets: [CANARY]
tools:
  - mcp: { name: notes, command: [node, ${server}], args: [${flag}] }
policy:
  allow: ["process(node ${server} ${flag})", "network_tool(notes.*)"]
steps:
${steps}
`;
}

describe('what an MCP server sends beside text (end to end)', () => {
  it('keeps audio like images, checks structured content against the output schema, and shows log lines masked', async () => {
    await writeFiles(dir, {
      'flow.yml': workflow(`  - id: voice
    tool: notes.voice
  - id: count
    tool: notes.count
  - id: wrong
    tool: notes.count_wrong
    continue_on_error: true
  - id: bare
    tool: notes.count_bare
    continue_on_error: true
  - id: chatty
    tool: notes.chatty
    with: { text: "token \${{ secrets.CANARY }}" }`),
    });
    const run = await runCliEvents(['run', 'flow.yml'], { cwd: dir, env: { CANARY: secret } });
    expect(run.finished.get('voice')).toMatchObject({ status: 'success', audio: [{ mediaType: 'audio/wav', bytes: 16 }] });
    expect(run.finished.get('voice')!.images).toBeUndefined();
    expect(run.finished.get('count')).toMatchObject({ status: 'success' });
    expect(run.finished.get('wrong')).toMatchObject({ status: 'failure', error: { kind: 'execution_failed' } });
    expect(run.finished.get('wrong')!.error!.message).toMatch(/^notes\.count_wrong sent structuredContent that does not match its outputSchema: count: /);
    expect(run.finished.get('bare')!.error!.message).toBe('notes.count_bare declares an outputSchema but sent no structuredContent');
    const logLines = run.events.flatMap((event) => (event.type === 'step_progress' && event.stepId === 'chatty' ? [event.message] : []));
    expect(logLines).toEqual(['MCP server notes log (info, notes): info: token ***', 'MCP server notes log (warning, notes): warning: token ***']);
    expect(run.stdout + run.stderr).not.toContain(secret);
    expect(run.exitCode).toBe(0);
  });

  it('takes the tools a server lists again after notifications/tools/list_changed, for the steps that follow', async () => {
    await writeFiles(dir, {
      'flow.yml': workflow(
        `  - id: before
    tool: notes.tag
    with: { label: first }
  - id: relabel
    tool: notes.relabel
  - id: after
    tool: notes.tag
    with: { label: second }
    continue_on_error: true`,
        '--changing-tools',
      ),
    });
    const run = await runCliEvents(['run', 'flow.yml'], { cwd: dir, env: { CANARY: secret } });
    expect(run.finished.get('before')).toMatchObject({ status: 'success' });
    expect(run.finished.get('relabel')).toMatchObject({ status: 'success' });
    // The arguments that suited the tool as first listed are checked against its new schema, never sent.
    expect(run.finished.get('after')).toMatchObject({ status: 'failure' });
    expect(run.finished.get('after')!.error!.message).toMatch(/colour: .*unknown field\(s\) label/);
    expect(run.stdout).not.toContain('tagged second');
  });
});
