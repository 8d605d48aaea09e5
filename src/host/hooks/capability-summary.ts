import { z } from 'zod';
import { describeRequest, grantingRule, type CapabilityRequest, type EnvMode } from '../capability.js';
import type { ResolvedPath } from '../workspace.js';

const pathFacts = {
  /** Canonical absolute path (the one the policy matched). */
  path: z.string(),
  /** The path as the call wrote it. */
  requested: z.string(),
  scope: z.enum(['workspace', 'granted_root', 'unrestricted']),
};

const envModeSchema = z.discriminatedUnion('mode', [
  z.strictObject({ mode: z.literal('inherit') }),
  z.strictObject({ mode: z.literal('inherit_all') }),
  z.strictObject({ mode: z.literal('empty') }),
  z.strictObject({ mode: z.literal('inherit_except'), names: z.array(z.string()) }),
  z.strictObject({ mode: z.literal('inherit_only'), names: z.array(z.string()) }),
]);

const processFacts = {
  cwd: z.string(),
  executable: z.strictObject({
    requested: z.string(),
    resolved: z.string(),
    lookup: z.enum(['exact', 'path_search']),
  }),
  argv: z.array(z.string()).describe('Arguments after the executable'),
  env_mode: envModeSchema,
  env_names: z.array(z.string()).describe('Names of variables the call sets; never their values'),
  output_limit_bytes: z.number(),
  wall_limit_ms: z.number(),
};

const common = {
  /** One line a person reads. */
  description: z.string(),
  /** The narrowest rule that grants the request. */
  rule: z.string(),
};

/**
 * The structured facts of one capability request as hooks see them: built from the request the
 * policy evaluated, so a gate inspects exactly what was decided. Paths and shell text are
 * included; env values, headers, URL query strings and user info never are.
 */
export const capabilitySummarySchema = z
  .discriminatedUnion('class', [
    z.strictObject({ class: z.literal('read'), ...common, ...pathFacts, target: z.enum(['file', 'tree']) }),
    z.strictObject({ class: z.literal('write'), ...common, ...pathFacts, state: z.enum(['existing', 'missing']) }),
    z.strictObject({ class: z.literal('process'), ...common, invocation: z.literal('direct'), ...processFacts }),
    z.strictObject({
      class: z.literal('shell'),
      ...common,
      invocation: z.literal('shell'),
      ...processFacts,
      shell: z.enum(['sh', 'bash']),
      script: z.string(),
    }),
    z.strictObject({
      class: z.literal('network'),
      ...common,
      method: z.string(),
      scheme: z.enum(['http', 'https', 'tunnel']).describe('tunnel: a CONNECT a confined process made through the proxy'),
      host: z.string(),
      port: z.number().int(),
      url: z.string().describe('scheme://host/path: never user info, query string or fragment'),
    }),
    z.strictObject({ class: z.literal('network_tool'), ...common, tool: z.string() }),
    z.strictObject({ class: z.literal('skill'), ...common, name: z.string(), ...pathFacts }),
    z.strictObject({ class: z.literal('instructions'), ...common, ...pathFacts }),
  ])
  .meta({ id: 'CapabilitySummary' });

export type CapabilitySummary = z.infer<typeof capabilitySummarySchema>;

/** Builds the hook-facing facts of a request. */
export function summarizeCapability(request: CapabilityRequest): CapabilitySummary {
  switch (request.class) {
    case 'read':
      return { class: 'read', ...commonFacts(request), ...pathFactsOf(request.path), target: request.target };
    case 'write':
      return { class: 'write', ...commonFacts(request), ...pathFactsOf(request.path), state: request.path.state };
    case 'process':
      return { class: 'process', ...commonFacts(request), invocation: 'direct', ...processFactsOf(request) };
    case 'shell':
      return {
        class: 'shell',
        ...commonFacts(request),
        invocation: 'shell',
        ...processFactsOf(request),
        shell: request.shell,
        script: request.script,
      };
    case 'network': {
      const url = withoutSecrets(request.url);
      return {
        class: 'network',
        description: `${request.method} ${url}`,
        rule: grantingRule(request),
        method: request.method,
        scheme: request.scheme,
        host: request.host,
        port: request.port,
        url,
      };
    }
    case 'network_tool':
      return { class: 'network_tool', ...commonFacts(request), tool: request.tool };
    case 'skill':
      return { class: 'skill', ...commonFacts(request), name: request.name, ...pathFactsOf(request.path) };
    case 'instructions':
      return { class: 'instructions', ...commonFacts(request), ...pathFactsOf(request.path) };
  }
}

/**
 * The capability an `after_tool_use` event carries: the first request the call passed to the
 * authorization path (whatever was decided, policy denials included), or null when the call
 * never reached it (invalid arguments, no requests).
 */
export function afterToolUseCapability(requests: readonly CapabilityRequest[], firstWasAuthorized: boolean): CapabilitySummary | null {
  const first = requests[0];
  return first && firstWasAuthorized ? summarizeCapability(first) : null;
}

function commonFacts(request: CapabilityRequest): { description: string; rule: string } {
  return { description: describeRequest(request), rule: grantingRule(request) };
}

function pathFactsOf(resolved: ResolvedPath): { path: string; requested: string; scope: ResolvedPath['scope'] } {
  return { path: resolved.canonical, requested: resolved.requested, scope: resolved.scope };
}

function processFactsOf(request: Extract<CapabilityRequest, { class: 'process' | 'shell' }>) {
  return {
    cwd: request.cwd,
    executable: { ...request.executable },
    argv: [...request.argv],
    env_mode: envModeFacts(request.envMode),
    env_names: Object.keys(request.env),
    output_limit_bytes: request.outputLimitBytes,
    wall_limit_ms: request.wallLimitMs,
  };
}

function envModeFacts(envMode: EnvMode): z.infer<typeof envModeSchema> {
  return 'names' in envMode ? { mode: envMode.mode, names: [...envMode.names] } : { mode: envMode.mode };
}

/**
 * A network request's URL is already scheme://host/path by contract; this is the second line
 * of defence, since a query string or user info is where tokens travel.
 */
function withoutSecrets(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return raw.replace(/[?#].*$/s, '').replace(/\/\/[^/@]*@/, '//');
  }
}
