import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ToolError } from '../../src/host/errors.js';
import type { GateInput, PreToolGate } from '../../src/host/gates.js';
import { Policy } from '../../src/host/policy.js';
import { ToolRegistry } from '../../src/host/registry.js';
import type { Tool } from '../../src/host/tool.js';
import { ToolHost } from '../../src/host/tool-host.js';
import { Workspace } from '../../src/host/workspace.js';
import { echoTool } from '../../src/tools/echo.js';
import { startMcpServer } from '../../src/tools/mcp/start-server.js';
import type { McpServerDeclaration } from '../../src/tools/mcp/server-launch.js';
import { serverStartSubject } from '../../src/workflow/extensions/start-servers.js';
import { isAlive, waitUntilGone } from '../support/processes.js';
import { cliGrantHints } from '../../src/ui/grant-hints.js';

const server = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/notes-server.mjs');
const startRule = `process(node ${server})`;

interface Setup {
  allow?: string[];
  ask?: string[];
  gates?: PreToolGate[];
  env?: Record<string, string>;
}

/** A host over a temp workspace and one MCP server declaration started on it. */
class McpHarness {
  private constructor(
    readonly root: string,
    readonly host: ToolHost,
  ) {}

  static async create(setup: Setup): Promise<McpHarness> {
    const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'rho-mcp-')));
    const host = new ToolHost({
      grantHints: cliGrantHints,
      workspace: await Workspace.create(root),
      policy: Policy.fromText({ allow: setup.allow ?? [], ask: setup.ask ?? [], env: ['NOTES_MODE'] }),
      tools: new ToolRegistry([echoTool]),
      environment: { env: { PATH: process.env.PATH, ...setup.env }, secretNames: [], processEnv: { mode: 'inherit_all' } },
      gates: setup.gates ?? [],
    });
    return new McpHarness(root, host);
  }

  get pidFile(): string {
    return path.join(this.root, 'pids');
  }

  async start(extra: Partial<McpServerDeclaration> = {}) {
    const declaration: McpServerDeclaration = { name: 'notes', command: ['node', server], args: ['--pid-file', this.pidFile], ...extra };
    const started = await startMcpServer(declaration, {
      baseDirectory: this.root,
      host: this.host.environment,
      writableRoots: [this.root],
      session: this.host.session,
      signal: new AbortController().signal,
      roots: [this.root],
      authorize: async (request) => {
        const denial = await this.host.authorizeRequest(serverStartSubject('notes'), request, new AbortController().signal);
        if (denial) throw denial;
      },
    });
    for (const tool of started.tools) this.host.tools.register(tool);
    return started;
  }

  async pids(): Promise<number[]> {
    return (await readFile(this.pidFile, 'utf8')).split('\n').map(Number);
  }

  invoke(tool: string, args: unknown) {
    return this.host.invoke({ id: `call-${tool}`, tool, args });
  }

  async dispose(): Promise<void> {
    await this.host.dispose();
    await rm(this.root, { recursive: true, force: true });
  }
}

async function pidFileExists(file: string): Promise<boolean> {
  return readFile(file).then(
    () => true,
    () => false,
  );
}

describe('an MCP server over stdio', () => {
  let harness: McpHarness;
  let warnings: string[];
  beforeAll(async () => {
    harness = await McpHarness.create({
      allow: [startRule, 'network_tool(notes.search)', 'network_tool(notes.add)', 'network_tool(notes.env)', 'network_tool(notes.fail)'],
      env: { MY_API_KEY: 'do-not-pass', GREETING: 'hello' },
    });
    ({ warnings } = await harness.start({ args: ['--pid-file', harness.pidFile, '--bad-tools', '--noisy'], env: { NOTES_MODE: 'test' } }));
  });
  afterAll(() => harness.dispose());

  it('registers each server tool as <server>.<tool>, with what its annotations may decide', () => {
    const listed = (name: string): Tool => harness.host.tools.get(name)!;
    expect(harness.host.tools.names().filter((name) => name.startsWith('notes.'))).toEqual(['notes.search', 'notes.add', 'notes.env', 'notes.fail']);
    // readOnlyHint: true → resource-aware (shared access to the server); anything else → exclusive.
    expect(listed('notes.search')).toMatchObject({ origin: 'mcp', executionPolicy: 'resource-aware', classes: ['network_tool'], untrustedContent: false });
    expect(listed('notes.add')).toMatchObject({ executionPolicy: 'exclusive', untrustedContent: true });
    expect(listed('notes.fail')).toMatchObject({ executionPolicy: 'exclusive' });
  });

  it('leaves out tools whose declarations are not plain, usable data, one warning each', () => {
    expect(warnings).toEqual([
      expect.stringContaining('tool no_schema: the schema is not a JSON Schema object'),
      expect.stringContaining('tool array_schema: the schema must describe an object of arguments'),
      expect.stringContaining('tool numeric_description: the description is not a string'),
      expect.stringContaining('the name "bad name!" is not a tool name'),
    ]);
    for (const warning of warnings) expect(warning).toMatch(/^MCP server notes: a tool was left out: /);
  });

  it('calls a tool through the host and returns its structured content as data', async () => {
    const added = await harness.invoke('notes.add', { text: 'milk for the cat' });
    expect(added.output).toMatchObject({ text: '4 notes', data: { count: 4 }, metadata: { untrusted_content: true } });
    const found = await harness.invoke('notes.search', { query: 'milk' });
    expect(found.status).toBe('success');
    expect(found.output!.data).toEqual({ notes: ['buy milk', 'milk for the cat'] });
    expect(found.output!.metadata).toBeUndefined();
  });

  it('checks arguments strictly against the server’s JSON Schema before calling', async () => {
    const unknown = await harness.invoke('notes.search', { query: 'milk', limit: 3 });
    expect(unknown.error).toMatchObject({ kind: 'invalid_arguments' });
    const empty = await harness.invoke('notes.search', { query: '' });
    expect(empty.error).toMatchObject({ kind: 'invalid_arguments' });
  });

  it('turns a tool’s isError answer into a failure', async () => {
    const failed = await harness.invoke('notes.fail', {});
    expect(failed.status).toBe('failure');
    expect(failed.error!.message).toBe('notes.fail reported an error: the notebook is on fire');
  });

  it('gives the server the workflow’s process environment, scrubbed of credentials, plus its own env', async () => {
    const read = async (name: string) => (await harness.invoke('notes.env', { name })).output!.text;
    expect(await read('NOTES_MODE')).toBe('test');
    expect(await read('GREETING')).toBe('hello');
    expect(await read('MY_API_KEY')).toBe('(unset)');
  });
});

describe('starting and stopping MCP servers', () => {
  let harness: McpHarness | undefined;
  afterEach(async () => {
    await harness?.dispose();
    harness = undefined;
  });

  it('asks the policy before spawning: without the process grant nothing runs', async () => {
    harness = await McpHarness.create({ allow: ['network_tool(notes.search)'] });
    const refusal = (await harness.start().catch((error: unknown) => error)) as ToolError;
    expect(refusal.kind).toBe('policy_denied');
    expect(refusal.message).toMatch(/^MCP server notes was not started: process request "run node .*notes-server\.mjs --pid-file .*" was denied by policy/);
    expect(refusal.message).toContain(`--allow 'process(node ${server} --pid-file`);
    expect(await pidFileExists(harness.pidFile)).toBe(false);
    expect(harness.host.tools.names()).toEqual(['echo']);
    expect(harness.host.auditSnapshot()).toEqual([expect.objectContaining({ class: 'process', result: 'deny', decider: 'policy' })]);
  });

  it('lets a gate hook see and refuse the start (tool mcp:<name>)', async () => {
    const seen: GateInput[] = [];
    const gate: PreToolGate = {
      name: 'no-servers',
      async evaluate(input) {
        seen.push(input);
        return { decision: 'deny', reason: 'no MCP servers today' };
      },
    };
    harness = await McpHarness.create({ allow: [startRule], gates: [gate] });
    const refusal = (await harness.start().catch((error: unknown) => error)) as ToolError;
    expect(refusal.kind).toBe('hook_denied');
    expect(seen).toEqual([expect.objectContaining({ tool: 'mcp:notes', request: expect.objectContaining({ class: 'process', argv: [server, '--pid-file', harness.pidFile] }) })]);
    expect(await pidFileExists(harness.pidFile)).toBe(false);
  });

  it('needs an approval when the policy asks, and nobody can give one here', async () => {
    harness = await McpHarness.create({ ask: [startRule] });
    const refusal = (await harness.start().catch((error: unknown) => error)) as ToolError;
    expect(refusal.kind).toBe('approval_denied');
    expect(await pidFileExists(harness.pidFile)).toBe(false);
  });

  it('does not let annotations grant anything: a read-only tool still needs its network_tool rule', async () => {
    harness = await McpHarness.create({ allow: [startRule] });
    await harness.start();
    const denied = await harness.invoke('notes.search', { query: 'milk' });
    expect(denied.status).toBe('denied');
    expect(denied.error!.message).toContain("--allow 'network_tool(notes.search)'");
  });

  it('stops the server and what it started when the run’s session ends', async () => {
    harness = await McpHarness.create({ allow: [startRule] });
    await harness.start({ args: ['--pid-file', harness.pidFile, '--grandchild'] });
    const pids = await harness.pids();
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(isAlive(pid)).toBe(true);
    await harness.host.dispose();
    for (const pid of pids) expect(await waitUntilGone(pid, 2000)).toBe(true);
  });

  it('reports a server that died with how it ended', async () => {
    harness = await McpHarness.create({ allow: [startRule, 'network_tool(notes.add)'] });
    await harness.start();
    const [pid] = await harness.pids();
    process.kill(pid!, 'SIGKILL');
    expect(await waitUntilGone(pid!, 2000)).toBe(true);
    const failed = await harness.invoke('notes.add', { text: 'x' });
    expect(failed.status).toBe('failure');
    expect(failed.error!.message).toMatch(/^MCP server notes, tool add: .*the server was killed by SIGKILL/);
  });

  it('reports a program that is not an MCP server', async () => {
    harness = await McpHarness.create({ allow: ['process(node -e)'] });
    const failure = (await harness.start({ command: ['node', '-e', 'console.error("not a server"); process.exit(4)'], args: [] }).catch((error: unknown) => error)) as ToolError;
    expect(failure.kind).toBe('execution_failed');
    expect(failure.message).toMatch(/^MCP server notes was not started: the server did not complete the MCP handshake: .*exited with code 4.*not a server/s);
  });

  it('refuses sampling with an error that says rho has no model, at once', async () => {
    harness = await McpHarness.create({ allow: [startRule, 'network_tool(notes.*)'] });
    await harness.start({ args: ['--sampling'] });
    // Declined by rho, not left to the request's timeout: the error is rho's own answer.
    const failed = await harness.invoke('notes.summarize', {});
    expect(failed.status).toBe('failure');
    expect(failed.error!.message).toContain(
      'sampling failed: MCP error -32601: MCP error -32601: MCP server notes asked rho to sample a model (sampling/createMessage); declined: rho has no model',
    );
  });
});

describe('an MCP server listing too many tools', () => {
  let harness: McpHarness | undefined;
  afterEach(async () => {
    await harness?.dispose();
    harness = undefined;
  });

  it('keeps the first 1000 of 10,000 tools and says so in one warning, instead of failing', async () => {
    harness = await McpHarness.create({ allow: [startRule] });
    const started = await harness.start({ args: ['--pid-file', harness.pidFile, '--many-tools', '10000'] });
    expect(started.tools).toHaveLength(1000);
    expect(started.tools[0]?.name).toBe('notes.search');
    expect(started.warnings).toEqual(['MCP server notes: it lists more than 1000 tools; the first 1000 were kept and 9004 more left out']);
  });

  it('reports a flood of bad declarations in a bounded number of lines', async () => {
    harness = await McpHarness.create({ allow: [startRule] });
    const started = await harness.start({ args: ['--pid-file', harness.pidFile, '--many-bad-tools', '500'] });
    expect(started.tools).toHaveLength(4);
    expect(started.warnings).toHaveLength(11);
    expect(started.warnings.at(-1)).toBe('MCP server notes: 490 more tools were left out for invalid declarations');
  });
});
