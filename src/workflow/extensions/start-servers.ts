import { ToolError, toToolError } from '../../host/errors.js';
import type { ToolHost } from '../../host/tool-host.js';
import type { McpServerDeclaration } from '../../tools/mcp/server-launch.js';
import { evaluateDeep, type ExpressionContext } from '../expressions/index.js';
import type { Problem } from '../problems.js';
import type { WorkflowSource } from '../source.js';
import type { DeclaredServer } from './tool-sources.js';

export interface ServerStartOptions {
  /** The workflow file: an entry's `cwd` is relative to its directory, and warnings point into it. */
  source: WorkflowSource;
  /** An entry's `env`, `url`, `headers` and `oauth` values may use these, as the workflow's `env:` does. */
  inputs: ExpressionContext['inputs'];
  secrets: ExpressionContext['secrets'];
  /** Aborting it stops the starts still under way (a run that ended without needing them). */
  signal: AbortSignal;
  /** Called as each start ends, in the order they end. */
  onOutcome?(outcome: ServerStartOutcome): void;
  /**
   * Called each time a server's tools were listed anew after it said they changed, with the
   * warnings of the new listing. Steps are not checked again: their arguments are checked
   * against the new declarations as each is called.
   */
  onRelisted?(outcome: ServerStartOutcome): void;
}

/** How one server's start ended. */
export interface ServerStartOutcome {
  name: string;
  /** Tools left out, located at the server's entry. */
  warnings: Problem[];
  /** Why the server was not started (a denial keeps its kind). */
  error?: ToolError;
}

/** The subject a server start is authorized as: hooks and the audit see the tool `mcp:<name>`. */
export function serverStartSubject(name: string) {
  return { id: `mcp-server-${name}`, tool: `mcp:${name}`, args: {} };
}

function entryContext(options: ServerStartOptions): ExpressionContext {
  return { inputs: options.inputs, secrets: options.secrets, env: {}, steps: {}, run: { failed: false, cancelled: false } };
}

/** Each string of `values`, in nested entries too (`oauth.identity_provider`), with its expressions evaluated, as text. */
function evaluateValues<T extends object>(values: T | undefined, options: ServerStartOptions, what: string, server: string): T | undefined {
  if (values === undefined) return undefined;
  const context = entryContext(options);
  const evaluated = (entries: object): object =>
    Object.fromEntries(
      Object.entries(entries).map(([name, value]) => [name, typeof value === 'object' && value !== null ? evaluated(value) : String(evaluateDeep(value, context) ?? '')]),
    );
  try {
    return evaluated(values) as T;
  } catch (cause) {
    throw new ToolError('invalid_arguments', `MCP server ${server} was not started: ${what}: ${(cause as Error).message}`, { cause });
  }
}

/** The entry with its expressions evaluated: `env` of a stdio server, `url`, `headers` and `oauth` of an HTTP one. */
function evaluatedDeclaration(server: DeclaredServer, options: ServerStartOptions): McpServerDeclaration {
  const declaration = server.declaration;
  if ('url' in declaration) {
    const headers = evaluateValues(declaration.headers, options, 'headers', declaration.name);
    const { url } = evaluateValues({ url: declaration.url }, options, 'url', declaration.name)!;
    const oauth = evaluateValues(declaration.oauth, options, 'oauth', declaration.name);
    return { ...declaration, url: url!, ...(headers && { headers }), ...(oauth && { oauth }) };
  }
  const env = evaluateValues(declaration.env, options, 'env', declaration.name);
  return { ...declaration, ...(env && { env }) };
}

/**
 * Starts the workflow's MCP servers, all at once, and returns without waiting for them: each
 * server's namespace is expected on the host's registry, so a step calling one of its tools
 * waits for that server alone while the others, and steps that use none, go on. Each start is
 * a request on the host's authorization path (policy, hooks, approvals) decided before the
 * program is spawned or the URL contacted; each server is stopped when the host is disposed.
 * The returned promise settles (never rejects) when every start has ended, one outcome each.
 */
export async function startDeclaredServers(host: ToolHost, servers: readonly DeclaredServer[], options: ServerStartOptions): Promise<ServerStartOutcome[]> {
  if (servers.length === 0) return [];
  // The MCP client loads only when a workflow declares servers: it costs more than Node's own start.
  const loading = import('../../tools/mcp/start-server.js');
  const roots = [host.workspace.root, ...host.workspace.grantedRoots];
  const starts = servers.map(async (server): Promise<ServerStartOutcome> => {
    const declaration = evaluatedDeclaration(server, options);
    const { name } = declaration;
    const { startMcpServer } = await loading;
    const started = await startMcpServer(declaration, {
      baseDirectory: options.source.directory,
      host: host.environment,
      // A program found where steps write is matched only by a rule naming its path.
      writableRoots: host.confinementPlan.scope.places,
      confinement: host.callConfinement(serverStartSubject(name)),
      session: host.session,
      signal: options.signal,
      roots,
      authorize: async (request) => {
        const denial = await host.authorizeRequest(serverStartSubject(name), request, options.signal);
        if (denial) throw denial;
      },
    });
    host.tools.replaceNamespace(name, started.tools);
    const at = options.source.position(server.at);
    const located = (messages: readonly string[]) => messages.map((message) => ({ file: options.source.file, ...at, message: `warning: ${message}` }));
    started.onToolsChanged((relisted) => {
      // Calls to the server's tools wait for the new listing; one that fails keeps the tools as they were.
      const replaced = relisted
        .then((listed) => {
          host.tools.replaceNamespace(name, listed.tools);
          return located(listed.warnings);
        })
        .catch((error: unknown) =>
          located([`MCP server ${name} said its tools changed but its new tools were not taken (${toToolError(error).message}); its tools stay as they were`]),
        );
      host.tools.expect(
        name,
        replaced.then(() => undefined),
      );
      void replaced.then((warnings) => options.onRelisted?.({ name, warnings }));
    });
    return { name, warnings: located(started.warnings) };
  });
  servers.forEach((server, index) => {
    const listed = starts[index]!.then(
      () => undefined,
      (error: unknown) => toToolError(error),
    );
    host.tools.expect(server.declaration.name, listed);
  });
  return Promise.all(
    starts.map(async (start, index) => {
      const outcome = await start.catch((error: unknown): ServerStartOutcome => ({ name: servers[index]!.declaration.name, warnings: [], error: toToolError(error) }));
      options.onOutcome?.(outcome);
      return outcome;
    }),
  );
}
