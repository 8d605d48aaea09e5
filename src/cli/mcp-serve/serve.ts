import { workflowParseCache } from '../cache-places.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { interruptReason } from '../../host/call-result.js';
import { HostError } from '../../host/errors.js';
import { exitCodes } from '../../host/exit-codes.js';
import { reportStartupError } from '../startup-errors.js';
import { safeText } from '../../ui/safe-text.js';
import { authorityChanges, runAuthority } from '../../workflow/authority.js';
import { builtinRegistry } from '../../workflow/builtin-registry.js';
import { checkWorkflowFile } from '../../workflow/load.js';
import type { CompiledWorkflow } from '../../workflow/model.js';
import { formatProblem } from '../../workflow/problems.js';
import { parseRunChoices } from '../../workflow/run-choices.js';
import { runningUserHome } from '../../workflow/user-home.js';
import { workspaceOf } from '../../workflow/workspace-root.js';
import type { CliEnvironment } from '../environment.js';
import { abortOnSignals } from '../interrupts.js';
import { resolveRunTarget } from '../run-target.js';
import { callDeclaration } from './call-resources.js';
import { CallSchedule } from './call-schedule.js';
import type { Elicit } from './elicitation-approver.js';
import { runTaskCall, type ServeContext } from './run-task-call.js';
import { resolveTaskTool, taskTools, type TaskTool } from './task-tools.js';

/** How long a person has to answer an approval or a question in the client. */
const elicitationTimeoutMs = 10 * 60_000;

export interface ServeRequest {
  /** The workflow file as named on the command line; found as `rho run` finds it when absent. */
  file: string | undefined;
  /** rho's version, as the server introduces itself. */
  version: string;
}

export interface ServeStreams {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: { write(text: string): void };
}

/**
 * What a served file is, for telling later whether a call still runs that file: its content and
 * its authority. The ask and deny rules are the file's own: the rules a task's `uses:` files add
 * differ from task to task, and each run adds them as it always does.
 */
function servedIdentity(workflow: CompiledWorkflow, cwd: string, home: string | undefined): Map<string, string> {
  const identity = new Map([...runAuthority(workflow, parseRunChoices({}), cwd, home)].filter(([name]) => name !== 'policy.ask' && name !== 'policy.deny'));
  identity.set('policy.ask', JSON.stringify(workflow.file.policy?.ask ?? []));
  identity.set('policy.deny', JSON.stringify(workflow.file.policy?.deny ?? []));
  identity.set('the file', JSON.stringify(workflow.file));
  return identity;
}

/**
 * `rho mcp serve [FILE]`: the file's public tasks as MCP tools over stdio, until the client
 * closes the connection. Only JSON-RPC reaches stdout; diagnostics go to stderr. Returns the
 * exit code: 2 when the file is invalid or none is found, else 0.
 */
export async function serveWorkflowFile(request: ServeRequest, environment: CliEnvironment, streams: ServeStreams): Promise<number> {
  const warn = (line: string) => streams.stderr.write(`${safeText(line, false)}\n`);
  const cwd = process.cwd();
  let file: string;
  try {
    ({ file } = await resolveRunTarget(request.file === undefined ? [] : [request.file], cwd, false));
  } catch (error) {
    return reportStartupError(error, warn);
  }
  const registry = builtinRegistry();
  const checked = await checkWorkflowFile(file, registry, 'skip', { parseCache: workflowParseCache(process.env) });
  for (const problem of [...checked.problems, ...(checked.extensions?.warnings ?? [])]) warn(formatProblem(problem));
  if (!checked.workflow || checked.problems.length > 0) return exitCodes.usage;
  const home = runningUserHome(environment.env);
  const served = servedIdentity(checked.workflow, cwd, home);
  const tools = taskTools(file, checked.workflow.file, warn);
  const workspaceRoot = workspaceOf(checked.workflow.source.directory, checked.workflow.file.workspace, { cwd });
  const declarations = new Map(
    tools.map((tool) => {
      try {
        return [tool.name, callDeclaration(checked.workflow!.file, tool.task, registry, workspaceRoot, home)] as const;
      } catch {
        // A writes: the run itself will refuse: the call runs alone, and fails as the run says.
        return [tool.name, 'exclusive' as const] as const;
      }
    }),
  );
  const context: ServeContext = {
    file,
    cwd,
    environment,
    sessionApprovals: new Set(),
    admitWorkflow: (workflow) => {
      const changes = authorityChanges(served, servedIdentity(workflow, cwd, home));
      if (changes.length > 0) throw new HostError('usage', `${file} changed since the server started (${changes.join('; ')}); restart the MCP server to serve it as it is now`);
    },
    warn,
  };

  const server = new Server(
    { name: 'rho', version: request.version },
    {
      capabilities: { tools: {}, logging: {} },
      instructions: `Each tool runs one task of the workflow file ${file} under its policy: a request the policy does not allow is denied, one it asks about needs a person's approval in this client.`,
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map((tool) => ({
      name: tool.name,
      ...(tool.description !== undefined && { description: tool.description }),
      inputSchema: tool.inputSchema,
      ...(tool.outputSchema && { outputSchema: tool.outputSchema }),
    })),
  }));
  const schedule = new CallSchedule();
  const closing = new AbortController();
  const running = new Set<Promise<unknown>>();
  server.setRequestHandler(CallToolRequestSchema, async (call, extra): Promise<CallToolResult> => {
    let tool: TaskTool;
    try {
      tool = resolveTaskTool(tools, call.params.name);
    } catch (error) {
      return { content: [{ type: 'text', text: (error as Error).message }], isError: true };
    }
    const signal = AbortSignal.any([extra.signal, closing.signal]);
    const canElicit = server.getClientCapabilities()?.elicitation?.form !== undefined;
    const elicit: Elicit | undefined = canElicit ? (params, asked) => server.elicitInput(params, { signal: asked, timeout: elicitationTimeoutMs }) : undefined;
    const token = extra._meta?.progressToken;
    let progress = 0;
    const notices = {
      ...(token !== undefined && {
        progress: (message: string) =>
          void extra
            .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ++progress, message } } satisfies ServerNotification)
            .catch(() => undefined),
      }),
      log: (level: Parameters<Server['sendLoggingMessage']>[0]['level'], message: string) =>
        void server.sendLoggingMessage({ level, logger: 'rho', data: message }).catch(() => undefined),
    };
    const result = schedule.run(
      declarations.get(tool.name) ?? 'exclusive',
      signal,
      () => runTaskCall({ tool, rawArguments: call.params.arguments, elicit, notices, signal }, context),
      (): CallToolResult => ({ content: [{ type: 'text', text: `${tool.name}: cancelled before it started` }], isError: true }),
    );
    running.add(result);
    try {
      return await result;
    } finally {
      running.delete(result);
    }
  });
  server.onerror = (error) => warn(`rho: ${error.message}`);

  const closed = new Promise<void>((resolve) => (server.onclose = resolve));
  await server.connect(new StdioServerTransport(streams.stdin as NodeJS.ReadStream, streams.stdout as NodeJS.WriteStream));
  // The transport does not notice the client closing its end: stdin's end is the end of the session.
  const close = () => void server.close();
  streams.stdin.once('end', close);
  // SIGINT or SIGTERM (a client stopping the server) ends the session too; a second one forces the exit.
  abortOnSignals(closing, () => process.exit(exitCodes.interrupted));
  closing.signal.addEventListener('abort', close, { once: true });
  warn(`rho: serving ${tools.length} task${tools.length === 1 ? '' : 's'} of ${file} over stdio`);
  await closed;
  // The client is gone: what still runs is stopped as Ctrl-C would stop it.
  closing.abort(interruptReason);
  await Promise.allSettled(running);
  return exitCodes.success;
}
