import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliEvents } from '../support/cli-events.js';
import { makeTempDir, repoRoot, runCli, writeFiles } from '../support/cli.js';

const server = path.join(repoRoot, 'test/extensions/fixtures/notes-server.mjs');

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await makeTempDir()));
afterEach(() => cleanup());

function workflow(steps: string, { flag = '--resources', grant = 'network_tool(notes.*)' } = {}): string {
  return `version: 1
name: resources
tools:
  - mcp: { name: notes, command: [node, ${server}], args: [${flag}] }
policy:
  allow: ["process(node ${server} ${flag})", "${grant}", "write(out/**)"]
steps:
${steps}
`;
}

const read = (id: string, uri: string, extra = '') => `  - id: ${id}\n    tool: notes.-read-resource\n    with: { uri: "${uri}" }\n${extra}`;

describe('reading an MCP server’s resources in a step (end to end)', () => {
  it('lists them across pages and reads each: text as the output, images and audio as the step’s images and audio, other blobs as resources', async () => {
    await writeFiles(dir, {
      'flow.yml': workflow(`  - id: list
    tool: notes.-list-resources
${read('text', 'notes://all')}${read('logo', 'notes://logo.png')}${read('chime', 'notes://chime.wav')}${read('backup', 'notes://backup.bin')}  - id: report
    tool: write_file
    with: { path: out/report.json, create_dirs: true, content: "[\${{ toJSON(steps.list.data) }}, \${{ toJSON(steps.text.data) }}, \${{ toJSON(steps.backup.data) }}]" }
  - id: said
    tool: write_file
    with: { path: out/text.txt, content: "\${{ steps.text.output }}" }`),
    });
    const run = await runCliEvents(['run', 'flow.yml'], { cwd: dir });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.finished.get('logo')).toMatchObject({ status: 'success', images: [{ mediaType: 'image/png', bytes: 8 }] });
    expect(run.finished.get('chime')).toMatchObject({ status: 'success', audio: [{ mediaType: 'audio/wav', bytes: 16 }] });
    expect(run.finished.get('chime')!.images).toBeUndefined();
    const [listed, text, backup] = JSON.parse(await readFile(path.join(dir, 'out/report.json'), 'utf8')) as Record<string, unknown>[];
    expect(listed).toEqual({
      complete: true,
      resources: [
        { uri: 'notes://all', name: 'all notes', mime_type: 'text/plain' },
        { uri: 'notes://logo.png', name: 'logo', mime_type: 'image/png' },
        { uri: 'notes://chime.wav', name: 'chime', mime_type: 'audio/wav' },
        { uri: 'notes://backup.bin', name: 'backup', mime_type: 'application/octet-stream' },
      ],
    });
    const notes = 'buy milk\ncall mum\nwrite tests';
    expect(text).toEqual({ text: notes, resources: [{ uri: 'notes://all', mime_type: 'text/plain', text: notes }] });
    expect(backup).toEqual({ text: '', resources: [{ uri: 'notes://backup.bin', mime_type: 'application/octet-stream', blob: Buffer.from([0, 1, 2]).toString('base64') }] });
    expect(await readFile(path.join(dir, 'out/text.txt'), 'utf8')).toBe(notes);
  });

  it('fails a read of a resource the server does not have with what the server said, and refuses an argument that is not a URI', async () => {
    await writeFiles(dir, {
      'flow.yml': workflow(`${read('missing', 'notes://nope', '    continue_on_error: true\n')}${read('bad', 'not a uri', '    continue_on_error: true\n')}`),
    });
    const run = await runCliEvents(['run', 'flow.yml'], { cwd: dir });
    expect(run.finished.get('missing')).toMatchObject({ status: 'failure', error: { kind: 'execution_failed' } });
    expect(run.finished.get('missing')!.error!.message).toContain('MCP server notes, resource notes://nope: ');
    expect(run.finished.get('missing')!.error!.message).toContain('no resource notes://nope');
    expect(run.finished.get('bad')).toMatchObject({ status: 'failure', error: { kind: 'invalid_arguments' } });
    expect(run.finished.get('bad')!.error!.message).toContain('a URI with a scheme');
  });

  it('reads nothing unless a rule grants the read by name or the whole server', async () => {
    await writeFiles(dir, { 'flow.yml': workflow(read('text', 'notes://all'), { grant: 'network_tool(notes.search)' }) });
    const denied = await runCli(['run', 'flow.yml'], { cwd: dir });
    expect(denied.exitCode).toBe(3);
    expect(denied.stdout + denied.stderr).toContain(`--allow 'network_tool(notes.-read-resource)'`);
    const granted = await runCli(['run', 'flow.yml', '--allow', 'network_tool(notes.-read-resource)'], { cwd: dir });
    expect(granted.exitCode, granted.stderr).toBe(0);
  });

  it('offers no resource tools for a server without resources', async () => {
    await writeFiles(dir, { 'flow.yml': workflow(read('text', 'notes://all'), { flag: '--content' }) });
    const run = await runCli(['run', 'flow.yml'], { cwd: dir });
    expect(run.exitCode).not.toBe(0);
    expect(run.stdout + run.stderr).toContain('unknown tool "notes.-read-resource"');
  });
});
