import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitRequestFormParams, type ElicitResult, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { cp } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliPath, makeTempDir, repoRoot, writeFiles } from '../support/cli.js';
import { isAlive, processesIn } from '../support/processes.js';

const secret = 'tok-5ecr3t-value';

const workflow = `version: 1
name: agent tasks
secrets: [DEPLOY_TOKEN]
policy:
  allow: ['process(node print.mjs)', 'process(SHOWN=* node print.mjs)', 'process(node forever.mjs)']
  ask: ['process(node ask.mjs)']
tasks:
  greet:
    description: Greet someone
    inputs:
      who: { type: string, required: true, description: Who to greet }
      times: { type: number, default: 1 }
      loud: { type: boolean, default: false }
      mood: { type: choice, options: [happy, calm], default: calm }
      tags: { type: array, default: [] }
    steps:
      - id: hello
        exec: node print.mjs hello \${{ inputs.who }} \${{ inputs.mood }} \${{ inputs.times }}
    outputs:
      greeting: \${{ steps.hello.output }}
      loud: \${{ inputs.loud }}
  leak:
    description: Prints the deploy token
    steps:
      - id: show
        exec: node print.mjs
        env:
          SHOWN: \${{ secrets.DEPLOY_TOKEN }}
    outputs:
      printed: \${{ steps.show.output }}
  forbidden:
    steps:
      - id: other
        exec: node other.mjs
  approve:
    steps:
      - id: asked
        exec: node ask.mjs
  long:
    steps:
      - id: wait
        exec: node forever.mjs
  survey:
    steps:
      - id: q
        tool: questionnaire
        with:
          questions:
            - { id: name, question: Your name? }
            - { id: colour, question: Which colour?, type: choice, choices: [red, blue] }
    outputs:
      name: \${{ steps.q.data.answers.name }}
      colour: \${{ steps.q.data.answers.colour }}
  called:
    description: Runs a task of another file, whose deny rules join the run's
    steps:
      - uses: ./other.yml#hello
  _hidden:
    steps:
      - exec: node print.mjs
`;

const scripts = {
  'other.yml': `version: 1
name: other
policy: { deny: ['write'] }
tasks:
  hello: [{ tool: echo, with: { value: hi } }]
`,
  // Prints its arguments, and SHOWN when it is set.
  'print.mjs': `console.log([...process.argv.slice(2), process.env.SHOWN ?? ''].join(' ').trim());\n`,
  'ask.mjs': `console.log('asked and ran');\n`,
  'forever.mjs': `console.log('ready');\nsetInterval(() => {}, 1000);\n`,
};

interface Served {
  client: Client;
  transport: StdioClientTransport;
  /** Every message the client received from the server. */
  received: JSONRPCMessage[];
  /** Errors of the connection: a line on stdout that is not JSON-RPC is one. */
  errors: Error[];
  stderr: () => string;
}

async function serve(dir: string, options: { elicitation: boolean; answer?: (request: ElicitRequest) => ElicitResult; file?: string }): Promise<Served> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliPath, 'mcp', 'serve', ...(options.file === undefined ? [] : [options.file])],
    cwd: dir,
    env: { ...(process.env as Record<string, string>), CI: 'true', NO_COLOR: '1', DEPLOY_TOKEN: secret },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'test', version: '1.0.0' }, { capabilities: options.elicitation ? { elicitation: { form: {} } } : {} });
  if (options.elicitation) client.setRequestHandler(ElicitRequestSchema, (request) => options.answer!(request));
  const errors: Error[] = [];
  client.onerror = (error) => errors.push(error);
  await client.connect(transport);
  const received: JSONRPCMessage[] = [];
  const deliver = transport.onmessage!;
  transport.onmessage = (message) => {
    received.push(message);
    deliver(message);
  };
  return { client, transport, received, errors, stderr: () => stderr };
}

/**
 * The progress notices the server sent, in the order they arrived. Read off the wire: the SDK's
 * client drops a notice that arrives in the same chunk as its call's result.
 */
function progressSince(served: Served, seen: number): { token: unknown; message: string }[] {
  return served.received
    .slice(seen)
    .flatMap((message) =>
      'method' in message && message.method === 'notifications/progress'
        ? [{ token: (message.params as { progressToken: unknown }).progressToken, message: String((message.params as { message?: unknown }).message ?? '') }]
        : [],
    );
}

function text(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (result.content as { type: string; text: string }[]).map((part) => part.text).join('\n');
}

describe('rho mcp serve, to a client that declares elicitation', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let served: Served;
  let answer: (request: ElicitRequest) => ElicitResult;
  const asked: ElicitRequest[] = [];

  beforeAll(async () => {
    ({ dir, cleanup } = await makeTempDir());
    await writeFiles(dir, { 'rho.yml': workflow, ...scripts });
    served = await serve(dir, {
      elicitation: true,
      answer: (request) => {
        asked.push(request);
        return answer(request);
      },
    });
  });
  afterAll(async () => {
    await served.client.close();
    await cleanup();
  });

  it('lists the public tasks with input schemas from their inputs and output schemas from their outputs', async () => {
    const { tools } = await served.client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['approve', 'called', 'forbidden', 'greet', 'leak', 'long', 'survey']);
    const greet = tools.find((tool) => tool.name === 'greet')!;
    expect(greet.description).toBe('Greet someone');
    expect(greet.inputSchema).toMatchObject({
      type: 'object',
      properties: {
        who: { type: 'string', description: 'Who to greet' },
        times: { type: 'number', default: 1 },
        loud: { type: 'boolean', default: false },
        mood: { enum: ['happy', 'calm'], default: 'calm' },
        tags: { type: 'array', items: { type: 'string' }, default: [] },
      },
      required: ['who'],
      additionalProperties: false,
    });
    expect(greet.outputSchema).toEqual({ type: 'object', properties: { greeting: {}, loud: {} }, required: ['greeting', 'loud'] });
    expect(tools.find((tool) => tool.name === 'approve')!.outputSchema).toBeUndefined();
  });

  it('runs a task: its outputs as structured content, a summary as text, its output lines as progress', async () => {
    const seen = served.received.length;
    const result = await served.client.callTool({ name: 'greet', arguments: { who: 'Ada', mood: 'happy', times: 2, loud: true } }, undefined, { onprogress: () => undefined });
    const progress = progressSince(served, seen).map((notice) => notice.message);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ greeting: 'hello Ada happy 2\n', loud: true });
    expect(text(result)).toMatch(/^greet: succeeded\n- hello: success/);
    expect(progress).toContain('hello | hello Ada happy 2');
    expect(progress[0]).toMatch(/^hello: started/);
  });

  it('refuses arguments the task does not declare or of the wrong type, before anything runs', async () => {
    const result = await served.client.callTool({ name: 'greet', arguments: { who: 'Ada', mood: 'angry', extra: 1 } });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^greet: nothing ran: arguments of greet: .*mood/);
    expect(text(result)).toMatch(/extra/);
  });

  it('denies what the policy does not allow, naming the rule that would', async () => {
    const result = await served.client.callTool({ name: 'forbidden' });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^forbidden: denied\n- other: denied: .*denied by policy.*add "process\(node other\.mjs\)" to policy\.allow/s);
  });

  it('asks the person behind the client to approve an ask request: allowed once it runs, declined it is denied', async () => {
    answer = () => ({ action: 'accept', content: { decision: 'allow_once' } });
    const allowed = await served.client.callTool({ name: 'approve' });
    expect(text(allowed)).toMatch(/^approve: succeeded/);
    const form = asked.at(-1)!.params as unknown as { message: string; requestedSchema: { properties: { decision: { oneOf: { const: string }[] } } } };
    expect(form.message).toMatch(/^Approval needed \(step asked, tool exec\): process request/);
    expect(form.message).toContain('asked by');
    expect(form.requestedSchema.properties.decision.oneOf.map((choice) => choice.const)).toEqual(['allow_once', 'allow_session', 'deny']);

    answer = () => ({ action: 'decline' });
    const declined = await served.client.callTool({ name: 'approve' });
    expect(declined.isError).toBe(true);
    expect(text(declined)).toMatch(/^approve: denied\n- asked: denied/);
  });

  it('remembers "allow for this session" for the same request in later calls', async () => {
    answer = () => ({ action: 'accept', content: { decision: 'allow_session' } });
    expect(text(await served.client.callTool({ name: 'approve' }))).toMatch(/^approve: succeeded/);
    const count = asked.length;
    answer = () => ({ action: 'decline' });
    expect(text(await served.client.callTool({ name: 'approve' }))).toMatch(/^approve: succeeded/);
    expect(asked.length).toBe(count);
  });

  it('asks the questions of a questionnaire step as one form', async () => {
    answer = () => ({ action: 'accept', content: { name: 'Ada', colour: 'blue' } });
    const result = await served.client.callTool({ name: 'survey' });
    expect(result.structuredContent).toEqual({ name: 'Ada', colour: 'blue' });
    expect((asked.at(-1)!.params as ElicitRequestFormParams).requestedSchema).toEqual({
      type: 'object',
      properties: { name: { type: 'string', title: 'Your name?' }, colour: { type: 'string', title: 'Which colour?', enum: ['red', 'blue'] } },
      required: ['name', 'colour'],
    });
  });

  it('masks a secret from the server environment in everything the client receives', async () => {
    const seen = served.received.length;
    const result = await served.client.callTool({ name: 'leak' }, undefined, { onprogress: () => undefined });
    expect(text(result)).toMatch(/^leak: succeeded/);
    const progress = progressSince(served, seen).map((notice) => notice.message);
    expect(progress).toContain('show | ***');
    expect(result.structuredContent).toEqual({ printed: '***\n' });
    expect(JSON.stringify(served.received)).not.toContain(secret);
    expect(served.received.length).toBeGreaterThan(3);
  });

  it('cancels a call as Ctrl-C would: its process is killed', async () => {
    const controller = new AbortController();
    let ready!: () => void;
    const started = new Promise<void>((resolve) => (ready = resolve));
    const call = served.client.callTool({ name: 'long' }, undefined, {
      signal: controller.signal,
      onprogress: (notice) => notice.message === 'wait | ready' && ready(),
    });
    await started;
    const running = processesIn(dir).filter((pid) => pid !== served.transport.pid);
    expect(running.length).toBeGreaterThan(0);
    controller.abort();
    await expect(call).rejects.toThrow();
    await expect.poll(() => running.filter(isAlive), { timeout: 10_000 }).toEqual([]);
  });

  it('runs two calls made at once one after the other, both to the end', async () => {
    const seen = served.received.length;
    const call = (who: string) => served.client.callTool({ name: 'greet', arguments: { who } }, undefined, { onprogress: () => undefined });
    const [first, second] = await Promise.all([call('one'), call('two')]);
    expect(first.structuredContent).toMatchObject({ greeting: 'hello one calm 1\n' });
    expect(second.structuredContent).toMatchObject({ greeting: 'hello two calm 1\n' });
    const notices = progressSince(served, seen);
    // Each call's notices carry its own token; its output line says which call it is.
    const tokenOf = (who: string) => notices.find((notice) => notice.message.startsWith(`hello | hello ${who} `))!.token;
    const ends = (who: string) => notices.findIndex((notice) => notice.token === tokenOf(who) && notice.message === 'hello: success');
    const starts = (who: string) => notices.findIndex((notice) => notice.token === tokenOf(who) && notice.message.startsWith('hello: started'));
    // Whichever started first finished before the other started.
    const [earlier, later] = starts('one') < starts('two') ? ['one', 'two'] : ['two', 'one'];
    expect(ends(earlier!)).toBeGreaterThan(-1);
    expect(ends(earlier!)).toBeLessThan(starts(later!));
  });

  it('kept stdout to JSON-RPC alone and said what it serves on stderr', () => {
    // The SDK's client handles notifications a microtask later than responses: a progress notice
    // that arrives in the same chunk as its call's result finds the call gone. Any other error
    // (a line on stdout that is not JSON-RPC) counts.
    expect(served.errors.filter((error) => !error.message.startsWith('Received a progress notification for an unknown token'))).toEqual([]);
    expect(served.received.every((message) => message.jsonrpc === '2.0')).toBe(true);
    expect(served.stderr()).toContain('rho: serving 7 tasks of rho.yml over stdio');
    expect(served.stderr()).not.toContain(secret);
  });
});

describe('rho mcp serve, to a client without elicitation', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let served: Served;

  beforeAll(async () => {
    ({ dir, cleanup } = await makeTempDir());
    await writeFiles(dir, { 'rho.yml': workflow, ...scripts });
    served = await serve(dir, { elicitation: false });
  });
  afterAll(async () => {
    await served.client.close();
    await cleanup();
  });

  it('denies an ask request: nobody can approve it', async () => {
    const result = await served.client.callTool({ name: 'approve' });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/- asked: denied: .*needs approval .*the MCP client does not support elicitation/);
  });

  it('runs a task that uses another file, and refuses a call once the file changed, until the server is restarted', async () => {
    expect(text(await served.client.callTool({ name: 'called' }))).toMatch(/^called: succeeded/);
    await writeFiles(dir, { 'rho.yml': workflow.replace("'process(node forever.mjs)'", "'process(node forever.mjs)', 'process(node other.mjs)'") });
    const result = await served.client.callTool({ name: 'forbidden' });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^forbidden: nothing ran: rho\.yml changed since the server started \(policy\.allow: \+ "process\(node other\.mjs\)"/);
  });
});

describe('workflows/agent.yml, served', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let served: Served;
  const asked: string[] = [];

  beforeAll(async () => {
    ({ dir, cleanup } = await makeTempDir());
    await cp(path.join(repoRoot, 'workflows/agent.yml'), path.join(dir, 'workflows/agent.yml'));
    await cp(path.join(repoRoot, 'workflows/npm-project'), path.join(dir, 'workflows/npm-project'), { recursive: true });
    served = await serve(dir, {
      elicitation: true,
      file: 'workflows/agent.yml',
      answer: (request) => {
        asked.push((request.params as { message: string }).message);
        return { action: 'accept', content: { decision: 'allow_once' } };
      },
    });
  });
  afterAll(async () => {
    await served.client.close();
    await cleanup();
  });

  it('installs once a person approves it, then tests and returns the report', async () => {
    const { tools } = await served.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['install', 'test']);
    expect(text(await served.client.callTool({ name: 'install' }))).toMatch(/^install: succeeded/);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(/npm ci --no-audit --no-fund --offline/);
    const tested = await served.client.callTool({ name: 'test' });
    expect((tested.structuredContent as { report: string }).report).toContain('tests passed');
  });
});

describe('rho mcp serve, two calls at once', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let served: Served;

  // Each writes where it says it writes, then waits for the other's mark: two calls that ran one
  // after the other would both wait for ever (and fail after 20 s).
  const apart = `version: 1
name: apart
policy:
  allow: ['process(node meet.mjs)', 'write(out/**)']
tasks:
  left:
    writes: [out/left/**]
    steps: [node meet.mjs left right]
  right:
    writes: [out/right/**]
    steps: [node meet.mjs right left]
`;
  const meet = `import { existsSync, writeFileSync } from 'node:fs';
const [own, other] = process.argv.slice(2);
writeFileSync(\`out/\${own}/here\`, '');
const giveUp = Date.now() + 20_000;
const wait = () => (existsSync(\`out/\${other}/here\`) ? console.log(\`\${own} met \${other}\`) : Date.now() > giveUp ? process.exit(1) : setTimeout(wait, 20));
wait();
`;

  beforeAll(async () => {
    ({ dir, cleanup } = await makeTempDir());
    await writeFiles(dir, { 'apart.yml': apart, 'meet.mjs': meet, 'out/left/.keep': '', 'out/right/.keep': '' });
    served = await serve(dir, { elicitation: false, file: 'apart.yml' });
  });
  afterAll(async () => {
    await served.client.close();
    await cleanup();
  });

  it('runs calls that write apart side by side', async () => {
    const [left, right] = await Promise.all([served.client.callTool({ name: 'left' }), served.client.callTool({ name: 'right' })]);
    expect(text(left)).toMatch(/^left: succeeded/);
    expect(text(right)).toMatch(/^right: succeeded/);
  });
});
