import { workflowParseCache } from './cache-places.js';
import path from 'node:path';
import { HostError } from '../host/errors.js';
import { serverKey } from '../tools/mcp/auth/credential-store.js';
import { isCredentialHeader } from '../tools/network/headers.js';
import { findWorkflowFile, noWorkflowFound } from '../workflow/discover.js';
import { evaluateDeep } from '../workflow/expressions/index.js';
import { declaredToolSources } from '../workflow/extensions/tool-sources.js';
import { parseInputs } from '../workflow/inputs.js';
import { workflowSchema } from '../workflow/schema.js';
import { WorkflowSource } from '../workflow/source.js';

/** What `rho mcp login SERVER` names: a URL, or the name of a server a workflow file declares. */
export interface LoginTarget {
  server: string;
  /** The workflow file that declares a named server (`-f`); by default `rho.yml` here or above. */
  file: string | undefined;
  /** `-i KEY=VALUE`: the inputs a server's `url` may use, as in a run. */
  inputs: readonly string[];
  cwd: string;
}

/** A word that is a URL rather than a server's name (names are `[a-z0-9][a-z0-9_-]*`). */
function isUrl(word: string): boolean {
  return word.includes('://');
}

/**
 * The server a sign-in is for, as `rho mcp login` names it to the person: its URL, and the name
 * the workflow gives it when SERVER was one, so that two servers of one host are told apart.
 */
export function describeLoginTarget(server: string, url: URL): string {
  return isUrl(server) ? serverKey(url) : `MCP server ${server} (${serverKey(url)})`;
}

function httpUrl(text: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new HostError('usage', `${what} is not an http(s) URL of an MCP server`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new HostError('usage', `${what} is not an http(s) URL of an MCP server`);
  return url;
}

/**
 * The URL to sign in to. A name is looked up among the `mcp:` entries of the workflow file, and
 * its `url` evaluated with the file's inputs (their defaults and `-i`); secrets are never read
 * here. A server that cannot use a sign-in — over stdio, with an `oauth:` grant, or
 * sending its own credential header — is refused, saying why.
 */
export async function resolveLoginTarget(target: LoginTarget): Promise<URL> {
  if (isUrl(target.server)) {
    if (target.file !== undefined || target.inputs.length > 0) throw new HostError('usage', '--file and --input go with a server name, not a URL');
    return httpUrl(target.server, target.server);
  }
  const file = target.file === undefined ? await findWorkflowFile(target.cwd) : path.resolve(target.cwd, target.file);
  if (file === undefined) throw noWorkflowFound(target.cwd);
  const shown = path.relative(target.cwd, file) || file;
  const { source, problems } = await WorkflowSource.read(file, workflowParseCache(process.env));
  if (!source) throw new HostError('invalid_workflow', `${shown}: ${problems.map((problem) => problem.message).join('; ')}`);
  const servers = declaredToolSources(source).servers.map((server) => server.declaration);
  const declaration = servers.find((server) => server.name === target.server);
  if (!declaration) {
    const names = servers.filter((server) => 'url' in server).map((server) => server.name);
    throw new HostError('usage', `${shown} declares no MCP server ${target.server}${names.length ? ` (servers over HTTP: ${names.join(', ')})` : ''}; name one, or give its URL`);
  }
  if (!('url' in declaration)) throw new HostError('usage', `MCP server ${target.server} runs over stdio; only servers over HTTP take a sign-in`);
  if (declaration.oauth)
    throw new HostError('usage', `MCP server ${target.server} is authorized by its oauth: grant (client credentials, or an identity provider's ID token); it needs no sign-in`);
  if (Object.keys(declaration.headers ?? {}).some(isCredentialHeader)) {
    throw new HostError('usage', `MCP server ${target.server} sends a credential header of its own, so runs never use a sign-in for it`);
  }
  const declared = workflowSchema.shape.inputs.safeParse((source.toData() as { inputs?: unknown }).inputs);
  const inputs = parseInputs(target.inputs, declared.success ? (declared.data ?? {}) : {});
  let url: unknown;
  try {
    url = evaluateDeep(declaration.url, { inputs, secrets: {}, env: {}, steps: {}, run: { failed: false, cancelled: false } });
  } catch (cause) {
    throw new HostError('usage', `MCP server ${target.server}: its url cannot be worked out without a run: ${(cause as Error).message}`, { cause });
  }
  return httpUrl(String(url), `the url of MCP server ${target.server}`);
}
