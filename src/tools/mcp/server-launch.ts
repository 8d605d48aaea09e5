import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { CapabilityRequest, ProcessRequest } from '../../host/capability.js';
import type { CallConfinement } from '../../host/confinement/index.js';
import { ToolError } from '../../host/errors.js';
import type { HostEnvironment } from '../../host/tool.js';
import { composeEnvironment, validateStepEnvironment } from '../process/environment.js';
import { resolveExecutable } from '../process/executable.js';
import { sortedEnvironment } from '../process/launch-plan.js';
import { processRequest } from '../process/request.js';
import { headerNamePattern, headerValuePattern, isCredentialHeader, managedHeaders } from '../network/headers.js';
import { resolveCheckedAddress, type AuthorizeNetwork } from '../network/checked-address.js';
import { networkRequest, parseHttpTarget } from '../network/url.js';
import type { ClientCredentialsDeclaration } from './auth/client-credentials.js';
import type { ServerChannel } from './server-connection.js';
import { maxMessageBytes, stdioChannel, type ServerLaunch } from './server-process.js';

/** An `mcp:` entry of a workflow's `tools:` that rho starts over stdio, with `env` values already evaluated. */
export interface StdioServerDeclaration {
  /** Namespace of the server's tools (`<name>.<tool>`). */
  name: string;
  /** The program and its first arguments. */
  command: readonly string[];
  args?: readonly string[];
  env?: Readonly<Record<string, string>>;
  /** Working directory, relative to `baseDirectory`. */
  cwd?: string;
}

/** An `mcp:` entry for a server reached over Streamable HTTP, with `headers` and `oauth` values already evaluated. */
export interface HttpServerDeclaration {
  name: string;
  url: string;
  headers?: Readonly<Record<string, string>>;
  /** The grant a run gets its token with (client credentials, or an identity provider's ID token), instead of a person's sign-in. */
  oauth?: ClientCredentialsDeclaration;
}

export type McpServerDeclaration = StdioServerDeclaration | HttpServerDeclaration;

export function isHttpServer(declaration: McpServerDeclaration): declaration is HttpServerDeclaration {
  return 'url' in declaration;
}

export interface ServerLaunchPlan {
  /** The `process` capability request that must be granted before anything is spawned. */
  request: ProcessRequest;
  launch: ServerLaunch;
}

export interface ServerConnectPlan {
  /** What must be granted before rho connects: `process` (stdio) or `network(HOST)` (HTTP). */
  request: CapabilityRequest;
  /**
   * Opens the channel; called only once the request is granted. An HTTP server's address is
   * checked with `authorize` as `http_request` checks its own (`resolveCheckedAddress`).
   */
  channel(authorize: AuthorizeNetwork): Promise<ServerChannel>;
}

/** Headers rho sets itself for the protocol; a declaration may not replace them. */
const protocolHeaders: ReadonlySet<string> = new Set(['accept', 'content-type', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id']);

/**
 * The URL and headers of an HTTP server, checked as `http_request` checks its own: no user info,
 * no smuggled headers. How a server that answers 401 is authorized: with the entry's `oauth:`
 * client credentials; else, without a credential header, with the user's OAuth sign-in from the
 * credentials file (`auth/`), or a refusal naming `rho mcp login`.
 */
export function planHttpConnect(declaration: HttpServerDeclaration, host: Pick<HostEnvironment, 'env' | 'masker'>): ServerConnectPlan {
  const target = parseHttpTarget(declaration.url);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(declaration.headers ?? {})) {
    const lower = name.toLowerCase();
    if (!headerNamePattern.test(name)) throw new ToolError('invalid_arguments', `header ${JSON.stringify(name)} is not a header name`);
    if (!headerValuePattern.test(value)) throw new ToolError('invalid_arguments', `header ${name}: a value may not hold line breaks or NUL`);
    if (managedHeaders.has(lower) || protocolHeaders.has(lower)) throw new ToolError('invalid_arguments', `header ${name} is set by rho itself`);
    headers[name] = value;
  }
  // A workflow that sends a credential header signs its requests itself; rho's sign-in stays out of the way.
  const signsItself = Object.keys(headers).some(isCredentialHeader);
  if (signsItself && declaration.oauth) throw new ToolError('invalid_arguments', 'a server is authorized by a credential header or by oauth:, not both');
  const request = networkRequest('POST', target);
  return {
    request,
    channel: async (authorize) => {
      const pinned = await resolveCheckedAddress(request, authorize);
      // The HTTP client transport loads only for a workflow that has an HTTP server.
      const { httpChannel } = await import('./http-channel.js');
      if (signsItself) return httpChannel(target, headers, pinned, authorize);
      if (declaration.oauth) {
        const [{ clientCredentialsAuth }, { tokenMasking }] = await Promise.all([import('./auth/client-credentials.js'), import('./auth/token-masking.js')]);
        const oauth = declaration.oauth;
        return httpChannel(target, headers, pinned, authorize, (send) => clientCredentialsAuth(target.url, oauth, tokenMasking(host.masker), send));
      }
      const { storedSignIn } = await import('./auth/stored-sign-in.js');
      return httpChannel(target, headers, pinned, authorize, () => storedSignIn(target.url, host));
    },
  };
}

/** What connecting to a declared server needs granted, and how to open its channel. */
export async function planServerConnect(
  declaration: McpServerDeclaration,
  baseDirectory: string,
  host: HostEnvironment,
  writableRoots: readonly string[],
  confinement?: CallConfinement,
): Promise<ServerConnectPlan> {
  if (isHttpServer(declaration)) return planHttpConnect(declaration, host);
  const { request, launch } = await planServerLaunch(declaration, baseDirectory, host, writableRoots, confinement);
  return { request, channel: async () => stdioChannel(launch, host.masker) };
}

async function resolveServerDirectory(directory: string): Promise<string> {
  try {
    const canonical = await realpath(directory);
    if ((await stat(canonical)).isDirectory()) return canonical;
  } catch {
    // Reported below with the directory that was asked for.
  }
  throw new ToolError('not_found', `cwd ${directory} is not an existing directory`);
}

/**
 * Resolves where and what a server would run, exactly as a process step would be prepared: the
 * program looked up once on the host's PATH (or named by path), the environment composed from
 * the workflow's process_env mode (credentials scrubbed) plus the entry's own `env`. Nothing runs.
 */
export async function planServerLaunch(
  declaration: StdioServerDeclaration,
  baseDirectory: string,
  host: HostEnvironment,
  writableRoots: readonly string[],
  confinement?: CallConfinement,
): Promise<ServerLaunchPlan> {
  const [command, ...commandArgs] = declaration.command;
  if (command === undefined) throw new ToolError('invalid_arguments', 'command is empty');
  const cwd = await resolveServerDirectory(path.resolve(baseDirectory, declaration.cwd ?? '.'));
  const stepEnv = declaration.env ?? {};
  validateStepEnvironment(stepEnv, host.secretNames);
  const executable = await resolveExecutable(command, { pathVariable: host.env.PATH, cwd, writableRoots });
  const argv = [...commandArgs, ...(declaration.args ?? [])];
  const request = processRequest({
    cwd,
    executable,
    argv,
    envMode: host.processEnv,
    env: sortedEnvironment(stepEnv),
    outputLimitBytes: maxMessageBytes,
    wallLimitMs: 0,
  });
  const env = composeEnvironment({ hostEnv: host.env, mode: host.processEnv, stepEnv });
  return { request, launch: { file: executable.resolved, args: argv, cwd, env, confinement } };
}
