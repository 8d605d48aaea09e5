import { z } from 'zod';
import { ToolError } from '../host/errors.js';
import type { SecretMasker } from '../host/masking.js';
import { defineBuiltinTool, type ToolContext, type ToolOutput } from '../host/tool.js';
import { completeUtf8Length } from '../host/utf8.js';
import { parseJsonBody, readBoundedBody, type BoundedBody } from './network/body.js';
import { boundedResponseHeaders, headerNamePattern, headerValuePattern, managedHeaders } from './network/headers.js';
import { isRedirect, nextHop, type Hop } from './network/redirects.js';
import { resolveCheckedAddress } from './network/checked-address.js';
import { pinnedLookup, type PinnedAddress } from './network/pinned-address.js';
import { maxUrlLength, networkRequest, parseHttpTarget } from './network/url.js';

const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

export const httpRequestLimits = {
  requestBodyBytes: 1024 * 1024,
  defaultResponseBytes: 1024 * 1024,
  responseBytes: 16 * 1024 * 1024,
  redirects: 10,
  headerValueLength: 8192,
  timeoutSeconds: 3600,
} as const;

const httpRequestArgs = () =>
  z
    .strictObject({
      url: z.string().min(1).max(maxUrlLength).describe('http or https URL without user info'),
      method: z.enum(methods).default('GET'),
      headers: z
        .record(z.string(), z.string().max(httpRequestLimits.headerValueLength).regex(headerValuePattern, 'a header value cannot contain line breaks or NUL'))
        .optional()
        .describe(
          'Request headers; values are never logged, and credential-like ones (Authorization, Cookie, X-Api-Key, *token*, *secret*, ...) are not sent to another origin after a redirect',
        ),
      body: z.string().optional().describe('Request body as text'),
      json: z.json().optional().describe('Request body as JSON (sets content-type: application/json)'),
      timeout: z.number().positive().max(httpRequestLimits.timeoutSeconds).optional().describe('Seconds to wait for the whole response'),
      max_response_bytes: z.number().int().positive().max(httpRequestLimits.responseBytes).default(httpRequestLimits.defaultResponseBytes),
      follow_redirects: z.boolean().default(true).describe('Follow redirects, each one checked against the policy first'),
      max_redirects: z.number().int().min(0).max(httpRequestLimits.redirects).default(5),
      ok_status: z.array(z.number().int().min(100).max(599)).min(1).optional().describe('Statuses that count as success (default 200-299)'),
    })
    .superRefine((args, ctx) => {
      const issue = (path: string[], message: string) => ctx.addIssue({ code: 'custom', path, message });
      if (args.body !== undefined && args.json !== undefined) issue(['json'], 'give body or json, not both');
      if ((args.method === 'GET' || args.method === 'HEAD') && (args.body !== undefined || args.json !== undefined)) {
        issue(['body'], `a ${args.method} request has no body`);
      }
      const written = Object.keys(args.headers ?? {});
      for (const name of written) if (!headerNamePattern.test(name)) issue(['headers', name], 'not a valid header name');
      const names = written.map((name) => name.toLowerCase());
      names.forEach((name, index) => {
        if (managedHeaders.has(name)) issue(['headers', name], `${name} is set by rho itself`);
        if (names.indexOf(name) !== index) issue(['headers', name], `${name} is given more than once`);
      });
      if (Buffer.byteLength(requestBody(args) ?? '') > httpRequestLimits.requestBodyBytes) {
        issue(['body'], `the request body is over ${httpRequestLimits.requestBodyBytes} bytes`);
      }
      try {
        parseHttpTarget(args.url);
      } catch (error) {
        issue(['url'], (error as Error).message);
      }
    });

type HttpRequestArgs = z.infer<ReturnType<typeof httpRequestArgs>>;

function requestBody(args: Pick<HttpRequestArgs, 'body' | 'json'>): string | undefined {
  return args.json !== undefined ? JSON.stringify(args.json) : args.body;
}

function requestHeaders(args: HttpRequestArgs): Headers {
  const headers = new Headers(args.headers);
  if (args.json !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
  return headers;
}

/** Describes a failed fetch by its cause's code, never by a message that could quote the URL. */
function fetchFailure(hop: Hop, error: unknown): ToolError {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  const reason = typeof cause?.code === 'string' ? cause.code : 'the connection failed';
  return new ToolError('execution_failed', `${hop.method} ${hop.target.display} failed: ${reason}`, { cause: error });
}

interface Limits {
  signal: AbortSignal;
  /** Aborts when the call's own `timeout` (not the step's) runs out. */
  timeout: AbortSignal | undefined;
  timeoutSeconds: number | undefined;
  callSignal: AbortSignal;
}

type Sent = { kind: 'redirect'; status: number; location: string } | { kind: 'final'; response: Response; body: BoundedBody };

let agentLoading: Promise<typeof import('undici').Agent> | undefined;

/** undici (the HTTP client behind Node's fetch) loads on the first request, not with every run. */
function loadAgent(): Promise<typeof import('undici').Agent> {
  return (agentLoading ??= import('undici').then((undici) => undici.Agent));
}

/**
 * Sends one hop to the address its name was resolved to once, after the check
 * (`resolveCheckedAddress`); a redirect to follow comes back unread, any other response read to
 * its (bounded) end. fetch's own dispatcher would resolve again, and a DNS answer that changed
 * since the check could send an allowed name elsewhere.
 */
async function send(hop: Hop, pinned: PinnedAddress, limits: Limits, maxBytes: number, follow: boolean): Promise<Sent> {
  const Agent = await loadAgent();
  const dispatcher = new Agent({ connect: { lookup: pinnedLookup(pinned) } });
  try {
    const response = await fetch(hop.target.url, {
      method: hop.method,
      headers: hop.headers,
      body: hop.body,
      redirect: 'manual',
      signal: limits.signal,
      dispatcher,
    } as RequestInit);
    const location = response.headers.get('location');
    if (follow && isRedirect(response.status, location)) {
      await response.body?.cancel().catch(() => undefined);
      return { kind: 'redirect', status: response.status, location };
    }
    return { kind: 'final', response, body: await readBoundedBody(response.body, maxBytes) };
  } catch (error) {
    if (limits.callSignal.aborted) throw error;
    if (limits.timeout?.aborted) {
      throw new ToolError('timeout', `${hop.method} ${hop.target.display} did not complete within ${limits.timeoutSeconds}s`, { cause: error });
    }
    throw fetchFailure(hop, error);
  } finally {
    void dispatcher.destroy().catch(() => undefined);
  }
}

/**
 * The response text with the run's secrets masked, then cut to `maxBytes`: the body was read a
 * little past the limit so that a secret straddling it is masked whole before the cut.
 */
function maskedBody(body: BoundedBody, maxBytes: number, masker: SecretMasker | undefined): { text: string; truncated: boolean } {
  const truncated = body.truncated || body.bytes.length > maxBytes;
  if (!masker || masker.empty) return { text: new TextDecoder().decode(body.bytes.subarray(0, completeUtf8Length(body.bytes.subarray(0, maxBytes)))), truncated };
  const masked = Buffer.from(masker.mask(new TextDecoder().decode(body.bytes)), 'utf8');
  const kept = masked.subarray(0, maxBytes);
  return { text: kept.toString('utf8', 0, completeUtf8Length(kept)), truncated };
}

function finalOutput(args: HttpRequestArgs, hop: Hop, response: Response, body: BoundedBody, redirects: readonly string[], masker: SecretMasker | undefined): ToolOutput {
  const ok = args.ok_status ? args.ok_status.includes(response.status) : response.status >= 200 && response.status < 300;
  if (!ok) {
    throw new ToolError('execution_failed', `${hop.method} ${hop.target.display} answered ${response.status}; to accept it, add ok_status: [${response.status}]`, {
      details: { status: response.status },
    });
  }
  const { text, truncated } = maskedBody(body, args.max_response_bytes, masker);
  const headers = boundedResponseHeaders(response.headers, (value) => masker?.mask(value) ?? value);
  const json = parseJsonBody(text, response.headers.get('content-type'), truncated);
  return {
    text,
    data: {
      status: response.status,
      headers: headers.headers,
      body: text,
      truncated: truncated || headers.truncated,
      ...(json !== undefined && { json }),
    },
    metadata: { method: hop.method, url: hop.target.display, status: response.status, redirects },
  };
}

/** Authorizes and sends each hop in turn: the first URL and every redirect are checked before they are requested. */
async function request(args: HttpRequestArgs, ctx: ToolContext): Promise<ToolOutput> {
  const timeout = args.timeout === undefined ? undefined : AbortSignal.timeout(args.timeout * 1000);
  const limits: Limits = {
    signal: timeout ? AbortSignal.any([ctx.signal, timeout]) : ctx.signal,
    timeout,
    timeoutSeconds: args.timeout,
    callSignal: ctx.signal,
  };
  let hop: Hop = { method: args.method, target: parseHttpTarget(args.url), headers: requestHeaders(args), body: requestBody(args) };
  const masker = ctx.host.masker;
  // Room past the limit for the longest secret form (at most 3 UTF-8 bytes per UTF-16 unit).
  const readBytes = args.max_response_bytes + (masker ? masker.longestForm * 3 : 0);
  const first = hop;
  const redirects: string[] = [];
  for (;;) {
    const asked = networkRequest(hop.method, hop.target, hop);
    await ctx.authorize(asked);
    const pinned = await resolveCheckedAddress(asked, (request) => ctx.authorize(request));
    ctx.progress({ message: `${hop.method} ${hop.target.display}` });
    const sent = await send(hop, pinned, limits, readBytes, args.follow_redirects);
    if (sent.kind === 'final') return finalOutput(args, hop, sent.response, sent.body, redirects, masker);
    if (redirects.length >= args.max_redirects) {
      throw new ToolError('execution_failed', `${first.method} ${first.target.display} redirected more than ${args.max_redirects} times`);
    }
    hop = nextHop(hop, sent.status, sent.location);
    redirects.push(hop.target.display);
  }
}

/** The step data the tool returns (`steps.<id>.data`). */
const httpRequestData = () =>
  z.object({
    status: z.number().int(),
    headers: z.record(z.string(), z.string()),
    body: z.string(),
    truncated: z.boolean(),
    json: z.unknown().optional().describe('the body parsed, for a JSON response'),
  });

export const httpRequestTool = defineBuiltinTool({
  name: 'http_request',
  description:
    'Send an HTTP(S) request to a host the policy allows (network(HOST)); every redirect is checked against the policy ' +
    'before it is followed. Returns {status, headers, body, truncated, json?} with bounded headers and body.',
  origin: 'built-in',
  data: httpRequestData,
  classes: ['network'],
  executionPolicy: 'exclusive',
  // A response is whatever the server sends: never code a workflow may run.
  untrustedContent: true,
  schema: httpRequestArgs,
  run: request,
});
