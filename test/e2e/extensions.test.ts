import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jsonEvents, makeTempDir, repoRoot, runCli, writeFiles } from '../support/cli.js';
import { isAlive, processesIn } from '../support/processes.js';

const server = path.join(repoRoot, 'test/extensions/fixtures/notes-server.mjs');
const wordCount = path.join(repoRoot, 'workflows/tools/word-count.mjs');
const moduleTool = path.join(repoRoot, 'workflows/module-tool.yml');
const mcpExample = path.join(repoRoot, 'workflows/mcp.yml');

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await makeTempDir()));
afterEach(() => cleanup());

/**
 * A workflow using the test suite's MCP server, which writes its pid (and its child's) to
 * `out/pids`: pids of its own PID namespace when it runs confined, so they only show that it ran.
 */
function notesWorkflow(options: { allowStart?: boolean; steps?: string } = {}): string {
  const start = options.allowStart === false ? '' : `"process(node ${server})", `;
  return `version: 1
name: notes
tools:
  - mcp: { name: notes, command: [node, ${server}], args: [--pid-file, out/pids, --grandchild] }
policy:
  allow: [${start}"network_tool(notes.search)", "network_tool(notes.add)", "write(out/**)"]
steps:
${
  options.steps ??
  `  - id: add
    tool: notes.add
    with: { text: "milk for the cat" }
  - id: find
    tool: notes.search
    with: { query: milk }
  - id: report
    tool: write_file
    with: { path: out/found.json, content: "\${{ toJSON(steps.find.data) }}", create_dirs: true }`
}
`;
}

async function serverPids(): Promise<number[]> {
  return (await readFile(path.join(dir, 'out/pids'), 'utf8')).split('\n').map(Number);
}

/** The server (and its child) started, and no process is left in the directory it ran in. */
async function expectAllGone(pids: readonly number[]): Promise<void> {
  expect(pids.length).toBeGreaterThan(0);
  await expect.poll(() => processesIn(dir).filter(isAlive), { timeout: 1000 }).toEqual([]);
}

async function readOut(name: string): Promise<string> {
  return readFile(path.join(dir, 'out', name), 'utf8');
}

describe('module tools (end to end)', () => {
  it('runs the example workflow with its module tool', async () => {
    const result = await runCli(['run', moduleTool], { cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/\[count\] ✔ success/);
  });

  it('imports a TypeScript module tool through tsx where rho is installed', async () => {
    const reverse = path.join(repoRoot, 'test/extensions/fixtures/modules/reverse.ts');
    await writeFiles(dir, {
      'flow.yml': `version: 1
name: reverse
tools:
  - module: ${reverse}
steps:
  - { id: a, tool: reverse, with: { text: abc } }
`,
    });
    const result = await runCli(['run', 'flow.yml', '--output', 'plain'], { cwd: dir });
    expect([result.exitCode, result.stderr]).toEqual([0, '']);
    expect(result.stdout).toMatch(/\[a\] ✔ success/);
  });

  it('passes the module tool’s data to later steps, under the workflow’s policy', async () => {
    await writeFiles(dir, {
      'notes.txt': 'one two three\nfour\n',
      'flow.yml': `version: 1
name: count
tools:
  - module: ${wordCount}
policy:
  allow: ["read(notes.txt)", "write(out/**)"]
steps:
  - id: count
    tool: word_count
    with: { path: notes.txt }
  - id: save
    tool: write_file
    with: { path: out/count.json, content: "\${{ toJSON(steps.count.data) }}", create_dirs: true }
  - id: secret
    needs: save
    tool: word_count
    with: { path: flow.yml }
`,
    });
    const result = await runCli(['run', 'flow.yml'], { cwd: dir });
    expect(result.exitCode).toBe(3);
    expect(JSON.parse(await readOut('count.json'))).toEqual({ path: 'notes.txt', lines: 2, words: 4, characters: 19 });
    expect(result.stdout).toMatch(/\[secret\] ⛔ denied .*--allow 'read\(flow\.yml\)'/);
  });

  it('leaves a broken declaration out with a warning and runs the tools that loaded', async () => {
    await writeFiles(dir, {
      'tools/count.mjs': `export default [
  { name: 'count', description: 'Count items', timeoutMs: -1,
    schema: { type: 'object', properties: { items: { type: 'array' } }, required: ['items'] },
    async run(args) { return { text: String(args.items.length), data: args.items.length }; } },
  { name: 'broken', description: 'Schema is not an object', schema: 42, async run() { return { text: '' }; } },
];
`,
      'flow.yml': `version: 1
name: broken-module
tools:
  - module: ./tools/count.mjs
steps:
  - id: count
    tool: count
    with: { items: [a, b, c] }
`,
    });
    const result = await runCli(['run', 'flow.yml'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/\[count\] ✔ success/);
    expect(result.stderr.trim().split('\n')).toEqual([
      'flow.yml:4:13: warning: ./tools/count.mjs: tool count: timeoutMs should be a whole number of milliseconds from 1 to 86400000 (got -1); using the default 30000',
      'flow.yml:4:13: warning: ./tools/count.mjs: tool broken was left out: its schema is unusable: the schema is not a JSON Schema object',
    ]);
  });

  it('runs the selftest of the example module tool', async () => {
    const result = await runCli(['tools', '-f', moduleTool, '--selftest'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^word_count +host +read +resource-aware +sync +Count the lines/m);
    expect(result.stdout).toMatch(/^selftest word_count: passed/m);
    expect(result.stdout).toContain('host tools are trusted in-process code');
  });
});

describe('MCP servers (end to end)', () => {
  it('validates module and MCP workflows without starting any server', async () => {
    await writeFiles(dir, { 'flow.yml': notesWorkflow() });
    const result = await runCli(['validate', moduleTool, mcpExample, 'flow.yml'], { cwd: dir });
    expect(result.stderr).toMatch(/^.*module-tool\.yml:\d+:\d+: note: tool module \.\/tools\/word-count\.mjs was not loaded/m);
    expect(result.stderr).toMatch(/^flow\.yml:\d+:\d+: note: MCP server notes was not started/m);
    expect(result.stderr).toMatch(/^flow\.yml:\d+:\d+: note: step find: tool notes\.search was not inspected/m);
    expect(result.exitCode).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual([`${moduleTool}: valid`, `${mcpExample}: valid`, 'flow.yml: valid']);
    await expect(readFile(path.join(dir, 'out/pids'))).rejects.toThrow(/ENOENT/);
  });

  it('lists a server’s tools with rho tools -f, and stops the server afterwards', async () => {
    await writeFiles(dir, { 'flow.yml': notesWorkflow() });
    const result = await runCli(['tools', '-f', 'flow.yml', '--json'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    const tools = JSON.parse(result.stdout) as { name: string; origin: string; execution_policy: string; schema: unknown }[];
    expect(tools.find((tool) => tool.name === 'notes.search')).toMatchObject({
      origin: 'mcp',
      execution_policy: 'resource-aware',
      schema: expect.objectContaining({ type: 'object', properties: { query: { type: 'string', minLength: 1 } } }),
    });
    expect(tools.find((tool) => tool.name === 'notes.add')).toMatchObject({ origin: 'mcp', execution_policy: 'exclusive' });
    expect(tools.find((tool) => tool.name === 'read_file')).toMatchObject({ origin: 'built-in' });
    await expectAllGone(await serverPids());
  });

  it('calls a server’s tools from a workflow and leaves no process behind', async () => {
    await writeFiles(dir, { 'flow.yml': notesWorkflow() });
    const result = await runCli(['run', 'flow.yml'], { cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(await readOut('found.json'))).toEqual({ notes: ['buy milk', 'milk for the cat'] });
    const pids = await serverPids();
    expect(pids).toHaveLength(2);
    await expectAllGone(pids);
  });

  it('exits 3 without starting anything when the policy lacks the process grant for the server', async () => {
    await writeFiles(dir, { 'flow.yml': notesWorkflow({ allowStart: false }) });
    const result = await runCli(['run', 'flow.yml'], { cwd: dir });
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toContain('rho: MCP server notes was not started: process request "run node');
    expect(result.stderr).toContain(`--allow 'process(node ${server} --pid-file out/pids --grandchild)'`);
    await expect(readFile(path.join(dir, 'out/pids'))).rejects.toThrow(/ENOENT/);
  });

  it('checks steps against the server’s tools once it runs: the step fails, then the server stops (exit 1)', async () => {
    await writeFiles(dir, { 'flow.yml': notesWorkflow({ steps: '  - id: find\n    tool: notes.serch\n    with: { query: milk }' }) });
    const result = await runCli(['run', 'flow.yml'], { cwd: dir });
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toContain('no tool named notes.serch is registered');
    expect(result.stderr).toMatch(/^flow\.yml:9:11: unknown tool "notes\.serch"; did you mean "notes\.search"\?$/m);
    await expectAllGone(await serverPids());
  });

  it('starts servers while the first steps that do not use them run, and does not wait for a server nobody called', async () => {
    const gated = (name: string, file: string) => `  - mcp: { name: ${name}, command: [node, ${server}], args: [--start-when, out/${file}, --pid-file, out/${name}.pid] }`;
    // A step that uses no server waits for both servers' processes, then lets them finish their
    // handshakes: rho deadlocks here unless it starts the servers together, in the background.
    const opener =
      "const fs = require('fs'); const up = () => ['notes', 'later'].every((name) => fs.existsSync(`out/${name}.pid`)); const wait = () => (up() ? fs.writeFileSync('out/go', '') : setTimeout(wait, 20)); wait();";
    await writeFiles(dir, {
      'flow.yml': `version: 1
name: gated
tools:
${gated('notes', 'go')}
${gated('later', 'go')}
${gated('never', 'never')}
policy:
  allow: ["process(node ${server})", "process(node -e)", "network_tool(notes.*)", "network_tool(later.*)", "write(out/**)"]
steps:
  - id: first
    tool: echo
    with: { value: hi }
  - id: open
    tool: exec
    with: { command: node, args: ["-e", ${JSON.stringify(opener)}] }
  - id: add
    tool: notes.add
    with: { text: "milk" }
  - id: more
    tool: later.add
    with: { text: "bread" }
`,
    });
    const result = await runCli(['run', 'flow.yml', '--events', 'events.ndjson'], { cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    const events = jsonEvents(await readFile(path.join(dir, 'events.ndjson'), 'utf8'));
    expect(events.filter((event) => event.type === 'step_finished').map((event) => [event['stepId'], event['status']])).toEqual([
      ['first', 'success'],
      ['open', 'success'],
      ['add', 'success'],
      ['more', 'success'],
    ]);
    // The server whose handshake never comes was started, and stopped when the run ended rather than waited for.
    expect(existsSync(path.join(dir, 'out', 'never.pid'))).toBe(true);
    await expectAllGone([Number(await readOut('never.pid'))]);
  });

  it('refuses, once the server runs and before any step starts, an open-world tool’s result written into a shell script (exit 2)', async () => {
    const steps = `  - id: first
    tool: write_file
    with: { path: out/first.txt, content: ran }
  - id: add
    tool: notes.add
    with: { text: "milk" }
  - id: show
    tool: shell
    with: { script: "echo \${{ steps.add.output }}" }`;
    // out/ exists already: the server creates it for its pid file while the first step would write there.
    await writeFiles(dir, { 'flow.yml': notesWorkflow({ steps }), 'out/.keep': '' });
    // Validation starts no server, so it cannot know yet what notes.add returns.
    expect((await runCli(['validate', 'flow.yml'], { cwd: dir })).exitCode).toBe(0);
    const result = await runCli(['run', 'flow.yml', '--allow', 'shell', '--events', 'events.ndjson'], { cwd: dir });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(
      /^flow\.yml:16:21: shell script would run text from outside the workflow \(steps\.add is a result of notes\.add, which brings in content from outside\); pass it through env: instead/m,
    );
    // No step started: neither the one before the server's tool, nor the tool itself.
    const events = (await readFile(path.join(dir, 'events.ndjson'), 'utf8'))
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string });
    expect(events.filter((event) => event.type === 'step_started')).toEqual([]);
    expect(existsSync(path.join(dir, 'out/first.txt'))).toBe(false);
    await expectAllGone(await serverPids());
  });

  it('lets a server tool’s result reach a step as data, where it is not code', async () => {
    const steps = `  - id: first
    tool: write_file
    with: { path: out/first.txt, content: ran }
  - id: add
    tool: notes.add
    with: { text: "milk" }
  - id: kept
    tool: write_file
    with: { path: out/kept.txt, content: "\${{ steps.add.output }}" }`;
    await writeFiles(dir, { 'flow.yml': notesWorkflow({ steps }), 'out/.keep': '' });
    const result = await runCli(['run', 'flow.yml'], { cwd: dir });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(await readFile(path.join(dir, 'out/kept.txt'), 'utf8')).toMatch(/notes/);
  });

  it('runs the example MCP workflow', async () => {
    const result = await runCli(['run', mcpExample], { cwd: dir });
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/Result: exit 0 \(5 success\)/);
  });
});

describe('checking an untrusted workflow runs none of its code', () => {
  const planted = `// A module whose top level writes a file: importing it is running it.
import { writeFileSync } from 'node:fs';
writeFileSync(new URL('./ran.txt', import.meta.url), 'module code ran');
export default { name: 'planted', description: 'x', schema: { type: 'object' }, async run() { return { text: 'ok' }; } };
`;
  const untrusted = `version: 1
name: untrusted
tools:
  - module: ./mod.mjs
steps:
  - id: a
    tool: planted
  - id: b
    tool: echo
    with: { value: 1 }
`;

  it('rho validate, rho plan and rho run --dry-run never import a tool module; they say what they did not inspect', async () => {
    await writeFiles(dir, { 'mod.mjs': planted, 'flow.yml': untrusted });
    const validated = await runCli(['validate', 'flow.yml'], { cwd: dir });
    expect(validated.exitCode).toBe(0);
    expect(validated.stderr).toContain('flow.yml:4:13: note: tool module ./mod.mjs was not loaded (checking a workflow never runs its code)');
    expect(validated.stderr).toContain('flow.yml:7:11: note: step a: tool planted was not inspected (it is not built-in)');
    for (const args of [
      ['plan', 'flow.yml'],
      ['plan', 'flow.yml', '--json'],
      ['run', 'flow.yml', '--dry-run'],
    ]) {
      const planned = await runCli(args, { cwd: dir });
      expect(planned.exitCode, args.join(' ')).toBe(0);
      expect(planned.stderr).toContain('note: tool module ./mod.mjs was not loaded');
    }
    const plan = JSON.parse((await runCli(['plan', 'flow.yml', '--json'], { cwd: dir })).stdout) as { steps: { id: string; preparation: string; note?: string }[] };
    expect(plan.steps[0]).toMatchObject({ id: 'a', preparation: 'at_run_time', note: expect.stringContaining('tool planted was not inspected') });
    expect(plan.steps[1]).toMatchObject({ id: 'b', preparation: 'prepared' });
    await expect(readFile(path.join(dir, 'ran.txt'))).rejects.toThrow(/ENOENT/);
    // Running it is trusting it: the module loads then, and not before.
    const ran = await runCli(['run', 'flow.yml'], { cwd: dir });
    expect(ran.exitCode).toBe(0);
    expect(await readFile(path.join(dir, 'ran.txt'), 'utf8')).toBe('module code ran');
  });

  it('rho validate still reports a typo in a built-in tool name beside a module it did not load', async () => {
    await writeFiles(dir, { 'mod.mjs': planted, 'flow.yml': untrusted.replace('tool: echo', 'tool: ecko') });
    const validated = await runCli(['validate', 'flow.yml'], { cwd: dir });
    expect(validated.stderr).toContain('flow.yml:9:11: note: step b: tool ecko was not inspected (it is not built-in), so its arguments were not checked; did you mean "echo"?');
    await expect(readFile(path.join(dir, 'ran.txt'))).rejects.toThrow(/ENOENT/);
  });

  it('locates the note of a step in a named task where it names its tool', async () => {
    const inTasks = `version: 1
name: in-tasks
tools:
  - module: ./mod.mjs
tasks:
  build:
    steps:
      - id: a
        tool: planted
`;
    await writeFiles(dir, { 'mod.mjs': planted, 'flow.yml': inTasks });
    const planned = await runCli(['plan', 'flow.yml', 'build'], { cwd: dir });
    expect(planned.exitCode).toBe(0);
    expect(planned.stderr).toContain('flow.yml:9:15: note: step a: tool planted was not inspected');
  });

  it('rho tools shows what a server says of its tools as text: no sequence of it reaches the terminal', async () => {
    await writeFiles(dir, { 'flow.yml': notesWorkflow().replace('--grandchild]', '--hostile-text]') });
    const listed = await runCli(['tools', '-f', 'flow.yml'], { cwd: dir });
    const one = await runCli(['tools', '-f', 'flow.yml', 'notes.shout'], { cwd: dir });
    for (const result of [listed, one]) {
      expect(result.exitCode).toBe(0);
      expect(result.stdout + result.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    }
    expect(listed.stdout).toMatch(/^notes\.shout .* Shouts\\e\]0;pwned title\\u\{7\}\\e\]52;c;cm0gLXJmIH4=\\u\{7\}\\e\[2J( \[results are untrusted content\])?$/m);
    expect(one.stdout).toContain('  Shouts\\e]0;pwned title\\u{7}\\e]52;c;cm0gLXJmIH4=\\u{7}\\e[2J\n  second line\n  over\n');
    expect(one.stdout).toMatch(/word +string +the word\\e\[1A\\e\[2K\\u\{9b\}31m/);
  });

  it('rho tools says in its help that --file loads the workflow’s modules', async () => {
    const help = await runCli(['tools', '--help'], { cwd: dir });
    expect(help.stdout).toMatch(/imports its modules: runs their code/);
    expect(help.stdout).toMatch(/rho validate and rho plan never run a\s+workflow's code/);
  });
});
