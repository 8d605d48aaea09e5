import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, repoRoot, runCli, writeFiles } from '../support/cli.js';

/** The MCP project's reference server, installed as a devDependency. */
const everything = path.join(repoRoot, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const startRule = `process(node ${everything} stdio)`;

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await makeTempDir()));
afterEach(() => cleanup());

function stdioWorkflow(options: { allow?: readonly string[]; steps: string }): string {
  const allow = options.allow ?? ['network_tool(ev.*)', 'write(out/**)'];
  return `version: 1
name: everything
tools:
  - mcp: { name: ev, command: [node, ${everything}, stdio] }
policy:
  allow: ${JSON.stringify([startRule, ...allow])}
steps:
${options.steps}
`;
}

interface StepFinished {
  type: 'step_finished';
  stepId: string;
  status: string;
  images?: { mediaType: string; bytes: number }[];
}

async function events(file: string): Promise<Record<string, unknown>[]> {
  return (await readFile(path.join(dir, file), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const out = (name: string) => readFile(path.join(dir, 'out', name), 'utf8');

describe('the everything server over stdio', () => {
  it('brings an image to the step and names it in its event by media type and size only', async () => {
    await writeFiles(dir, {
      'flow.yml': stdioWorkflow({
        steps: `  - id: image
    tool: ev.get-tiny-image`,
      }),
    });
    const result = await runCli(['run', 'flow.yml', '--events', 'events.ndjson'], { cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    const finished = (await events('events.ndjson')).find((event) => event.type === 'step_finished' && event.stepId === 'image') as unknown as StepFinished;
    expect(finished.images).toEqual([{ mediaType: 'image/png', bytes: expect.any(Number) }]);
    expect(finished.images![0]!.bytes).toBeGreaterThan(100);
    // The bytes stay out of every log: a PNG's base64 starts with iVBOR.
    expect(await readFile(path.join(dir, 'events.ndjson'), 'utf8')).not.toContain('iVBOR');
    expect(result.stdout).not.toContain('iVBOR');
  });

  it('keeps a blob resource as data with its MIME type, and structured content as data', async () => {
    await writeFiles(dir, {
      'flow.yml': stdioWorkflow({
        steps: `  - id: blob
    tool: ev.get-resource-reference
    with: { resourceType: Blob, resourceId: 2 }
  - id: weather
    tool: ev.get-structured-content
    with: { location: New York }
  - id: keep-blob
    tool: write_file
    with: { path: out/blob.json, content: "\${{ toJSON(steps.blob.data.resources) }}", create_dirs: true }
  - id: keep-weather
    tool: write_file
    with: { path: out/weather.json, content: "\${{ toJSON(steps.weather.data) }}", create_dirs: true }`,
      }),
    });
    const result = await runCli(['run', 'flow.yml'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    const resources = JSON.parse(await out('blob.json')) as unknown;
    const weather = JSON.parse(await out('weather.json')) as unknown;
    expect(resources).toEqual([{ uri: 'demo://resource/dynamic/blob/2', mime_type: 'text/plain', blob: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/) }]);
    expect(weather).toMatchObject({ temperature: expect.any(Number), conditions: expect.any(String) });
  });

  it('offers the workspace as the client’s roots', async () => {
    await writeFiles(dir, {
      'flow.yml': stdioWorkflow({
        steps: `  - id: roots
    tool: ev.get-roots-list
  - id: keep
    tool: write_file
    with: { path: out/roots.txt, content: "\${{ steps.roots.output }}", create_dirs: true }`,
      }),
    });
    const result = await runCli(['run', 'flow.yml'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    const roots = await out('roots.txt');
    expect(roots).toContain('(1 total)');
    expect(roots).toContain(`URI: file://${dir}`);
  });

  const elicitationWorkflow = stdioWorkflow({
    steps: `  - id: ask
    tool: ev.trigger-elicitation-request
  - id: keep
    tool: write_file
    with: { path: out/answer.txt, content: "\${{ steps.ask.output }}", create_dirs: true }`,
  });

  it('answers an elicitation with --answer, scoped to the step, typed as the form asks', async () => {
    await writeFiles(dir, { 'flow.yml': elicitationWorkflow });
    const result = await runCli(['run', 'flow.yml', '--answer', 'ask.name=Ada Lovelace', '--answer', 'ask.integer=7', '--answer', 'check=true'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain('step ask: answered name=Ada Lovelace (--answer)');
    const answer = await out('answer.txt');
    expect(answer).toContain('User provided the requested information');
    expect(answer).toContain('"name": "Ada Lovelace"');
    expect(answer).toContain('"integer": 7');
    expect(answer).toContain('"check": true');
  });

  it('refuses an answer the form’s schema does not allow', async () => {
    await writeFiles(dir, { 'flow.yml': elicitationWorkflow });
    const result = await runCli(['run', 'flow.yml', '--answer', 'ask.name=Ada', '--answer', 'ask.integer=500'], { cwd: dir });
    expect(result.stdout).toContain('question "integer"');
    expect(result.stdout).toContain('at most 100');
    expect(await out('answer.txt')).toContain('User declined');
  });

  it('declines at once in CI without an answer, naming the flag, and tells the server', async () => {
    await writeFiles(dir, { 'flow.yml': elicitationWorkflow });
    const started = performance.now();
    const result = await runCli(['run', 'flow.yml'], { cwd: dir });
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('MCP server ev asked for input: declined:');
    expect(result.stdout).toContain('--answer ask.name=VALUE');
    const answer = await out('answer.txt');
    expect(answer).toContain('User declined to provide the requested information');
    expect(answer).toContain('"action": "decline"');
  });

  it('grants a family of tools with SERVER.PREFIX* and nothing else', async () => {
    await writeFiles(dir, {
      'flow.yml': stdioWorkflow({
        allow: ['network_tool(ev.get-*)'],
        steps: `  - id: sum
    tool: ev.get-sum
    with: { a: 2, b: 3 }
  - id: echo
    tool: ev.echo
    with: { message: hi }`,
      }),
    });
    const result = await runCli(['run', 'flow.yml'], { cwd: dir });
    expect(result.exitCode).toBe(3);
    expect(result.stdout).toMatch(/\[sum\] ✔ success/);
    expect(result.stdout).toContain("--allow 'network_tool(ev.echo)'");
  });

  it('warns about rules that can never match, at validation and at run start', async () => {
    await writeFiles(dir, {
      'flow.yml': stdioWorkflow({
        allow: ['network_tool(ev.*)', 'network_tool(ev.nothing-*)', 'network_tool(gone.*)'],
        steps: `  - id: sum
    tool: ev.get-sum
    with: { a: 2, b: 3 }`,
      }),
    });
    const validated = await runCli(['validate', 'flow.yml'], { cwd: dir });
    expect(validated.exitCode).toBe(0);
    expect(validated.stderr).toMatch(/^flow\.yml:6:\d+: warning: allow rule "network_tool\(gone\.\*\)" can never match: no registered tool is named gone\.\*$/m);
    const result = await runCli(['run', 'flow.yml', '--allow', 'network_tool(ev.missing)'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toMatch(/warning: allow rule "network_tool\(gone\.\*\)" can never match/);
    expect(result.stderr).toMatch(/warning: allow rule "network_tool\(ev\.nothing-\*\)" can never match: no registered tool is named ev\.nothing-\*; ev offers ev\.echo/);
    expect(result.stderr).toContain('rho: warning: --allow "network_tool(ev.missing)" can never match');
    expect(result.stderr).not.toContain('"network_tool(ev.*)"');
  });
});

/** A free port on 127.0.0.1 (the server binds it right after). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the everything server over Streamable HTTP on 127.0.0.1', () => {
  let server: ResultPromise | undefined;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    server = execa('node', [everything, 'streamableHttp'], { env: { PORT: String(port) }, reject: false, stdin: 'ignore' });
    await new Promise<void>((resolve, reject) => {
      server!.stderr!.on('data', (chunk: Buffer) => String(chunk).includes('listening on port') && resolve());
      void server!.then(() => reject(new Error('the everything server ended before it listened')));
    });
  });
  afterAll(async () => {
    server?.kill('SIGTERM');
    await server;
  });

  function httpWorkflow(allow: readonly string[], headers = '{ Authorization: "Bearer ${{ secrets.EV_TOKEN }}" }'): string {
    return `version: 1
name: remote
secrets: [EV_TOKEN]
tools:
  - mcp: { name: web, url: "http://127.0.0.1:${port}/mcp", headers: ${headers} }
policy:
  allow: ${JSON.stringify(allow)}
steps:
  - id: image
    tool: web.get-tiny-image
  - id: sum
    tool: web.get-sum
    with: { a: 40, b: 2 }
  - id: said
    tool: echo
    with: { value: "token \${{ secrets.EV_TOKEN }} sum \${{ steps.sum.output }}" }
`;
  }

  it('connects once network(HOST) is granted, with credential headers from secrets, masked', async () => {
    await writeFiles(dir, { 'flow.yml': httpWorkflow([`network(127.0.0.1:${port})`, 'network_tool(web.*)']) });
    const result = await runCli(['run', 'flow.yml', '--events', 'events.ndjson'], { cwd: dir, env: { EV_TOKEN: 'tok-secret-123' } });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    const finished = (await events('events.ndjson')).find((event) => event.type === 'step_finished' && event.stepId === 'image') as unknown as StepFinished;
    expect(finished.images).toEqual([{ mediaType: 'image/png', bytes: expect.any(Number) }]);
    expect(result.stdout).not.toContain('tok-secret-123');
    expect(await readFile(path.join(dir, 'events.ndjson'), 'utf8')).not.toContain('tok-secret-123');
  });

  it('runs the example HTTP workflow against it', async () => {
    const example = path.join(repoRoot, 'workflows/mcp-http.yml');
    const result = await runCli(['run', example, '-i', `port=${port}`, '--allow', `network(127.0.0.1:${port})`], { cwd: dir, env: { MCP_TOKEN: 'tok-example-456' } });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/Result: exit 0 \(2 success\)/);
  });

  it('asks the policy before connecting: without network(HOST) nothing is contacted (exit 3)', async () => {
    await writeFiles(dir, { 'flow.yml': httpWorkflow(['network_tool(web.*)']) });
    const result = await runCli(['run', 'flow.yml'], { cwd: dir, env: { EV_TOKEN: 'tok-secret-123' } });
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toContain('rho: MCP server web was not started:');
    expect(result.stderr).toContain(`--allow 'network(127.0.0.1:${port})'`);
  });

  it('refuses a credential header that does not come from secrets', async () => {
    await writeFiles(dir, { 'flow.yml': httpWorkflow(['network_tool(web.*)'], '{ Authorization: "Bearer literal-token" }') });
    const result = await runCli(['validate', 'flow.yml'], { cwd: dir });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('header Authorization carries credentials and takes its value from secrets');
  });
});
