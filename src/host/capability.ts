import type { CapabilityClass } from './capability-classes.js';
import { globLiteral } from './glob-literal.js';
import type { SpecialKind } from './ip-address.js';
import { hostWithPort } from './network-host.js';
import { isHarmlessEnvName } from './env-grants.js';
import type { ResolvedPath } from './workspace.js';

/** How a child process's environment is built from the host's. */
export type EnvMode =
  | { mode: 'inherit' }
  | { mode: 'inherit_all' }
  | { mode: 'empty' }
  | { mode: 'inherit_except'; names: readonly string[] }
  | { mode: 'inherit_only'; names: readonly string[] };

export interface ExecutableSelection {
  /** As written in the call. */
  requested: string;
  /** Absolute path the process will run. */
  resolved: string;
  /** `exact` when the call named a path, `path_search` when it was looked up on PATH. */
  lookup: 'exact' | 'path_search';
  /**
   * Set when a PATH search found the program where steps can write (under the workspace or a
   * granted root, `node_modules/.bin` for one): a bare-name rule does not cover such a program,
   * only a rule that names its path does.
   */
  writable?: true;
}

interface ProcessFacts {
  cwd: string;
  executable: ExecutableSelection;
  /** Arguments after the executable. */
  argv: readonly string[];
  envMode: EnvMode;
  /**
   * Variables the call sets explicitly (the workflow's `env:` and the step's own), names and
   * values, keys sorted: remembered approvals match them exactly. Values may be secrets, so
   * audits, events and hook payloads carry the names alone; approvals show them masked.
   */
  env: Readonly<Record<string, string>>;
  outputLimitBytes: number;
  wallLimitMs: number;
  /**
   * Keyed digest (`contentDigest`) of the text written to stdin; absent when stdin is closed.
   * Part of the exact identity a remembered approval covers; never logged or given to hooks.
   */
  stdinDigest?: string;
}

export interface ReadRequest {
  class: 'read';
  path: ResolvedPath;
  target: 'file' | 'tree';
}

/**
 * What a person approving a write is shown of the content: never part of the request's identity
 * (its fingerprint), hook payloads, events or the audit.
 */
export interface WritePreview {
  mode: 'create' | 'overwrite' | 'append' | 'edit';
  /** Bytes written (for an edit: of the replacement texts). */
  bytes: number;
  lines: number;
  /** The first lines, each cut to a screen's width. */
  head: readonly string[];
}

export interface WriteRequest {
  class: 'write';
  path: ResolvedPath;
  preview?: WritePreview;
}

export interface ProcessRequest extends ProcessFacts {
  class: 'process';
  invocation: 'direct';
}

export interface ShellRequest extends ProcessFacts {
  class: 'shell';
  invocation: 'shell';
  shell: 'sh' | 'bash';
  script: string;
}

export interface NetworkRequest {
  class: 'network';
  /** The HTTP method; `CONNECT` for a tunnel a confined process opens through the proxy. */
  method: string;
  /** `tunnel`: an opaque TCP stream (usually TLS) a confined process asked the proxy for. */
  scheme: 'http' | 'https' | 'tunnel';
  /** Normalized host with a non-default port (`example.org`, `127.0.0.1:8080`). */
  host: string;
  /** Normalized host name alone (lower case, IDNA; IPv6 in brackets): what rules compare. */
  hostname: string;
  /** The port connected to (the scheme's default when the URL names none). */
  port: number;
  /** scheme://host/path — never user info or a query string. */
  url: string;
  /**
   * Present when the request is for the address a name resolved to (then `hostname` is that
   * address): a name that resolves to a special address (loopback, private, link-local…)
   * reaches it only when a rule names the address too (`network(10.0.0.5)`, a range, or
   * `localhost` for loopback), so no name can lead past a rule about an address.
   */
  resolved?: { from: string; kind: SpecialKind };
  /*
   * What the call sends beyond the facts rules match, as keyed digests (`contentDigest`) so that
   * no value travels with the request into events, hooks or logs, and none can be guessed back. Part of the exact identity a
   * remembered "allow for this run" covers: a changed query, header or body needs a new approval.
   */
  /** Digest of the query string; absent when there is none. */
  queryDigest?: string;
  /** Request headers by lower-case name (sorted), each value as a digest. */
  headers?: readonly { name: string; valueDigest: string }[];
  /** Digest of the request body; absent when there is none. */
  bodyDigest?: string;
  preview?: NetworkPreview;
}

/**
 * What a person approving a request is shown of what it sends: names, never values. Not part of
 * the request's identity (its fingerprint), hook payloads, events or the audit.
 */
export interface NetworkPreview {
  /** Names of the query parameters (their values are never shown). */
  queryNames: readonly string[];
  /** Size of the body sent, if any. */
  bodyBytes: number | undefined;
  /** Names of headers sent that carry credentials (Authorization, Cookie, ...). */
  credentialHeaders: readonly string[];
  /** Names of the other headers the call sets. */
  headerNames: readonly string[];
}

/** Lines and characters of content a preview keeps. */
export const previewLimits = { lines: 5, lineCharacters: 120 } as const;

/** The preview of a text about to be written. */
export function previewText(mode: WritePreview['mode'], text: string): WritePreview {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const head = lines.slice(0, previewLimits.lines).map((line) => (line.length > previewLimits.lineCharacters ? `${line.slice(0, previewLimits.lineCharacters)}…` : line));
  return { mode, bytes: Buffer.byteLength(text, 'utf8'), lines: lines.length, head };
}

export interface NetworkToolRequest {
  class: 'network_tool';
  tool: string;
}

export interface SkillRequest {
  class: 'skill';
  name: string;
  path: ResolvedPath;
}

export interface InstructionsRequest {
  class: 'instructions';
  path: ResolvedPath;
}

export type CapabilityRequest = ReadRequest | WriteRequest | ProcessRequest | ShellRequest | NetworkRequest | NetworkToolRequest | SkillRequest | InstructionsRequest;

export type { CapabilityClass };

export { capabilityClasses } from './capability-classes.js';

/**
 * Rule classes besides the request classes, which exist only as policy rules: `outside` (paths
 * outside the workspace, on top of their own rule) and `unix_socket` (confined processes may
 * create unix sockets, which a seccomp filter otherwise refuses).
 */
export type RuleClass = CapabilityClass | 'outside' | 'unix_socket';

function quoteIfNeeded(part: string): string {
  return /^[\w./@:+,=-]+$/.test(part) ? part : JSON.stringify(part);
}

/** The path a path-bearing request is matched and displayed by (relative inside its root). */
export function displayPath(resolved: ResolvedPath): string {
  if (resolved.scope === 'workspace') return resolved.relativeToRoot() || '.';
  return resolved.canonical;
}

function commandLine(request: ProcessRequest): string {
  return [request.executable.requested, ...request.argv].map(quoteIfNeeded).join(' ');
}

/** One line a person reads: what the request would do. */
export function describeRequest(request: CapabilityRequest): string {
  switch (request.class) {
    case 'read':
      return `read ${request.target === 'tree' ? 'directory tree' : 'file'} ${displayPath(request.path)}`;
    case 'write':
      return `write ${displayPath(request.path)}${request.path.state === 'missing' ? ' (new)' : ''}`;
    case 'process':
      return `run ${commandLine(request)}`;
    case 'shell':
      return `run ${request.shell} script`;
    case 'network':
      return `${request.method} ${request.url}${request.resolved ? ` (${request.resolved.from} resolved to ${request.hostname}, a ${request.resolved.kind} address)` : ''}`;
    case 'network_tool':
      return `network access managed by tool ${request.tool}`;
    case 'skill':
      return `load skill ${request.name}`;
    case 'instructions':
      return `read instructions ${displayPath(request.path)}`;
  }
}

/**
 * The narrowest rule that grants this exact request, in the syntax of `--allow`/`--approve`.
 * Used by every denial message so a person can copy it.
 */
export function grantingRule(request: CapabilityRequest): string {
  switch (request.class) {
    case 'instructions':
      return 'instructions';
    case 'read':
    case 'write': {
      const target = displayPath(request.path);
      const literal = globLiteral(target);
      const glob = request.class === 'read' && request.target === 'tree' ? `${target === '.' ? '' : `${literal}/`}**` : literal;
      return `${request.class}(${glob})`;
    }
    case 'process': {
      // A program named by path is matched by its resolved file, whatever cwd it was written against;
      // so is one a PATH search found where steps write, which a bare name does not cover.
      const { lookup, writable, resolved, requested } = request.executable;
      const executable = lookup === 'exact' || writable ? resolved : requested;
      // Variables are granted as NAME=*: the hint is shown and logged, and a value may be a secret.
      const assignments = Object.keys(request.env)
        .filter((name) => !isHarmlessEnvName(name))
        .map((name) => `${name}=*`);
      return `process(${[...assignments, ...[executable, ...request.argv].map(quoteIfNeeded)].join(' ')})`;
    }
    case 'shell':
      return 'shell';
    case 'network':
      return `network(${hostWithPort(request.hostname, request.port)})`;
    case 'network_tool':
      return `network_tool(${request.tool})`;
    case 'skill':
      return `skill(${request.name})`;
  }
}

/** Whether the request touches a path outside the primary workspace (and so also needs `outside`). */
export function isOutsideWorkspace(request: CapabilityRequest): boolean {
  return 'path' in request && request.path.scope !== 'workspace';
}
