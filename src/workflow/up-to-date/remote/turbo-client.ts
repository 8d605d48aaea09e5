import { createHmac, timingSafeEqual } from 'node:crypto';
import type { NetworkRequest } from '../../../host/capability.js';
import { networkRequest } from '../../../tools/network/url.js';
import { maxArtifactBytes } from './artifact.js';
import type { RemoteCacheSettings } from './config.js';
import { ToolError } from '../../../host/errors.js';

/**
 * Why the cache did not serve a request; `lasting` when every later request of the run would
 * fail the same way (unreachable, no answer, a refused token, a policy that denies it).
 */
export interface CacheProblem {
  reason: string;
  lasting: boolean;
}

/** What asking the cache for an artifact found. */
export type FetchedArtifact = { kind: 'hit'; body: Buffer } | { kind: 'miss' } | { kind: 'failed'; problem: CacheProblem };

/** What one request to the cache is made under: the policy's decision on it, and the run's signal. */
export interface RequestGate {
  /** The refusal's message, or undefined when the request is granted. */
  authorize(request: NetworkRequest): Promise<string | undefined>;
  signal: AbortSignal;
}

/** A store of artifacts by key: what the up-to-date checks need of a shared cache. */
export interface ArtifactStore {
  /** Where the store is, for messages (no token, no query). */
  readonly place: string;
  readonly readOnly: boolean;
  fetch(hash: string, gate: RequestGate): Promise<FetchedArtifact>;
  /** Stores an artifact: undefined when it was stored. */
  upload(hash: string, body: Buffer, durationMs: number, gate: RequestGate): Promise<CacheProblem | undefined>;
}

/**
 * The tag Turborepo signs an artifact with (`x-artifact-tag`): HMAC-SHA256 under the signature
 * key of the artifact's hash, the team and the artifact's bytes, in base64.
 */
export function artifactTag(key: string, hash: string, team: string, body: Buffer): string {
  return createHmac('sha256', key).update(hash).update(team).update(body).digest('base64');
}

function tagMatches(expected: string, given: string | null): boolean {
  if (given === null) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * A client of the Turborepo Remote Cache API (v8: `GET`/`PUT /v8/artifacts/:hash`, a bearer
 * token, the team as `teamId` or `slug`). Each request is first put to the run's policy as a
 * `network(HOST)` request; each is bounded by the settings' timeout, never follows a redirect
 * (the token goes to the configured server only), and reads at most `maxArtifactBytes`.
 */
export class TurboCacheClient implements ArtifactStore {
  readonly place: string;
  readonly readOnly: boolean;

  constructor(private readonly settings: RemoteCacheSettings) {
    this.place = settings.target.display.replace(/\/$/, '');
    this.readOnly = settings.readOnly;
  }

  async fetch(hash: string, gate: RequestGate): Promise<FetchedArtifact> {
    const response = await this.#request('GET', hash, undefined, gate);
    if (!(response instanceof Response)) return { kind: 'failed', problem: response };
    if (response.status === 404) {
      await response.body?.cancel();
      return { kind: 'miss' };
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      return { kind: 'failed', problem: statusProblem(response.status) };
    }
    const body = await readCapped(response, gate.signal).catch((error: unknown) => ({ reason: (error as Error).message, lasting: false }));
    if (!Buffer.isBuffer(body)) return { kind: 'failed', problem: body };
    const { signatureKey, team } = this.settings;
    if (signatureKey !== undefined && !tagMatches(artifactTag(signatureKey, hash, team ?? '', body), response.headers.get('x-artifact-tag'))) {
      const reason =
        'its signature (x-artifact-tag) is missing or does not match TURBO_REMOTE_CACHE_SIGNATURE_KEY: it was not stored by someone who holds the key, or it was changed since';
      return { kind: 'failed', problem: { reason, lasting: false } };
    }
    return { kind: 'hit', body };
  }

  async upload(hash: string, body: Buffer, durationMs: number, gate: RequestGate): Promise<CacheProblem | undefined> {
    const response = await this.#request('PUT', hash, { body, durationMs }, gate);
    if (!(response instanceof Response)) return response;
    await response.body?.cancel();
    return response.status >= 200 && response.status < 300 ? undefined : statusProblem(response.status);
  }

  async #request(method: 'GET' | 'PUT', hash: string, sent: { body: Buffer; durationMs: number } | undefined, gate: RequestGate): Promise<Response | CacheProblem> {
    const { signal } = gate;
    const { target, token, team, signatureKey, timeoutMs } = this.settings;
    const url = new URL(`${target.url.pathname.replace(/\/+$/, '')}/v8/artifacts/${hash}`, target.url);
    if (team !== undefined) url.searchParams.set(team.startsWith('team_') ? 'teamId' : 'slug', team);
    const refusal = await gate.authorize(networkRequest(method, { ...target, url, display: `${target.scheme}://${target.host}${url.pathname}` }));
    if (refusal !== undefined) return { reason: refusal, lasting: true };
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (sent) {
      headers['content-type'] = 'application/octet-stream';
      headers['x-artifact-duration'] = String(Math.max(0, Math.round(sent.durationMs)));
      if (signatureKey !== undefined) headers['x-artifact-tag'] = artifactTag(signatureKey, hash, team ?? '', sent.body);
    }
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      return await fetch(url, { method, headers, ...(sent && { body: sent.body }), redirect: 'manual', signal: AbortSignal.any([signal, timeout]) });
    } catch (cause) {
      if (timeout.aborted) return { reason: `no answer within ${timeoutMs / 1000}s (TURBO_REMOTE_CACHE_TIMEOUT)`, lasting: true };
      if (signal.aborted) return { reason: 'the run stopped', lasting: true };
      const reason = (cause as Error & { cause?: Error }).cause?.message ?? (cause as Error).message;
      return { reason: `the server could not be reached (${reason})`, lasting: true };
    }
  }
}

function statusProblem(status: number): CacheProblem {
  if (status === 401 || status === 403) return { reason: `the server refused the token (HTTP ${status}); check TURBO_TOKEN (and TURBO_TEAM)`, lasting: true };
  if (status >= 300 && status < 400)
    return { reason: `the server answered with a redirect (HTTP ${status}), which rho does not follow; set TURBO_API to the address it redirects to`, lasting: true };
  return { reason: `the server answered HTTP ${status}`, lasting: false };
}

async function readCapped(response: Response, signal: AbortSignal): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxArtifactBytes) {
    await response.body?.cancel();
    throw new ToolError('unsupported', `the artifact is larger than the ${maxArtifactBytes} bytes rho reads`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of response.body ?? []) {
    if (signal.aborted) throw new ToolError('cancelled', 'the run stopped');
    total += (chunk as Uint8Array).length;
    if (total > maxArtifactBytes) throw new ToolError('unsupported', `the artifact is larger than the ${maxArtifactBytes} bytes rho reads`);
    chunks.push(Buffer.from(chunk as Uint8Array));
  }
  return Buffer.concat(chunks);
}
