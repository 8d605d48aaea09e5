import { HostError, type ToolError } from '../../../host/errors.js';
import { parseHttpTarget, type HttpTarget } from '../../../tools/network/url.js';
import { parseDuration } from '../../duration.js';
import type { RemoteCacheSetting } from '../../schema.js';

/** A remote cache's settings, from the workflow's `remote_cache:` and Turborepo's variables. */
export interface RemoteCacheSettings {
  target: HttpTarget;
  token: string;
  team: string | undefined;
  /** Restores, never uploads (for untrusted runs such as pull requests from forks). */
  readOnly: boolean;
  /** Signs what is uploaded and refuses what is fetched unless its signature matches. */
  signatureKey: string | undefined;
  timeoutMs: number;
}

/** How long one request to the cache may take unless the settings say otherwise. */
export const defaultTimeoutMs = 30_000;

const truthy = new Set(['1', 'true', 'yes', 'on']);
const falsy = new Set(['0', 'false', 'no', 'off', '']);

function parseFlag(name: string, raw: string | undefined): boolean | undefined {
  if (raw === undefined) return undefined;
  const value = raw.trim().toLowerCase();
  if (truthy.has(value)) return true;
  if (falsy.has(value)) return false;
  throw new HostError('usage', `${name}=${raw} is not a boolean; set it to true or false`);
}

function parseTimeout(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) throw new HostError('usage', `TURBO_REMOTE_CACHE_TIMEOUT=${raw} is not a number of seconds between 0 and 3600`);
  return seconds * 1000;
}

/**
 * The remote cache of a run, or undefined when there is none: `remote_cache: false` turns it
 * off, and without an API address or a token there is nothing to talk to. The variables
 * Turborepo reads win over the file's values (a CI set-up for Turborepo works unchanged),
 * except that read-only holds when either asks for it. A malformed value is a usage error.
 */
export function parseRemoteCacheSettings(setting: RemoteCacheSetting | undefined, hostEnv: Readonly<Record<string, string | undefined>>): RemoteCacheSettings | undefined {
  if (setting === false) return undefined;
  const file = setting ?? {};
  const api = nonEmpty(hostEnv.TURBO_API) ?? file.api;
  const token = nonEmpty(hostEnv.TURBO_TOKEN);
  if (api === undefined || token === undefined) return undefined;
  let target: HttpTarget;
  try {
    target = parseHttpTarget(api);
  } catch (cause) {
    throw new HostError('usage', `the remote cache's address (TURBO_API or remote_cache.api) is refused: ${(cause as ToolError).message}`, { cause });
  }
  if (target.url.search !== '') throw new HostError('usage', "the remote cache's address (TURBO_API or remote_cache.api) may not have a query string");
  const readOnly = (parseFlag('TURBO_REMOTE_CACHE_READ_ONLY', hostEnv.TURBO_REMOTE_CACHE_READ_ONLY) ?? false) || (file.read_only ?? false);
  const timeoutMs = parseTimeout(hostEnv.TURBO_REMOTE_CACHE_TIMEOUT) ?? (file.timeout === undefined ? defaultTimeoutMs : parseDuration(file.timeout));
  return { target, token, team: nonEmpty(hostEnv.TURBO_TEAM) ?? file.team, readOnly, signatureKey: nonEmpty(hostEnv.TURBO_REMOTE_CACHE_SIGNATURE_KEY), timeoutMs };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
