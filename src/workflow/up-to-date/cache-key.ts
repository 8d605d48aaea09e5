import { createHash } from 'node:crypto';
import { canonicalJson } from './fingerprint.js';

/**
 * The version of what a cache key covers and of the artifacts stored under it: a rho that packs
 * or keys differently bumps it, so it never restores an artifact it would not have made.
 */
export const cacheFormatVersion = 1;

/** Everything that decides a step's outputs, as far as rho can know it. */
export interface CacheKeyInputs {
  tool: string;
  /** The call's arguments after expressions. */
  args: unknown;
  /** The variables every step receives (the workflow's `env:`, env files, `host_env:`). */
  env: Readonly<Record<string, string>>;
  /** The run's secrets: only which are set counts, never their values. */
  secrets: Readonly<Record<string, string>>;
  /** Workspace-relative path → SHA-256 of its content. */
  sources: ReadonlyMap<string, string>;
  /** The step's `generates:` globs: what the artifact holds. */
  generates: readonly string[];
  os: string;
  arch: string;
}

/** A step's key in a shared cache, and what it was made of, for `rho plan`. */
export interface CacheKey {
  /** Lower-case hex SHA-256: the artifact's name on the server. */
  hash: string;
  /** What went into it, one short phrase each. */
  inputs: readonly string[];
}

/**
 * A secret's value, wherever it appears in the arguments or the environment, stands for its
 * name: the key is sent to a server and stored in plain sight, and a digest that covered a
 * secret would let anyone who knows the rest test guesses of it. A value that changes with a
 * secret (a rotated token) therefore keeps its key; that is the price of never leaking it.
 */
function withoutSecrets(text: string, secrets: Readonly<Record<string, string>>): string {
  let result = text;
  // Longest first, so a secret that contains another is replaced whole.
  const ordered = Object.entries(secrets).sort(([, a], [, b]) => b.length - a.length);
  for (const [name, value] of ordered) if (value !== '') result = result.split(value).join(`\u0000secret:${name}\u0000`);
  return result;
}

/** The key of a step in a shared cache: the same on every machine for the same inputs. */
export function computeCacheKey(inputs: CacheKeyInputs): CacheKey {
  const secretNames = Object.keys(inputs.secrets).sort();
  const sources = [...inputs.sources].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const material = {
    format: cacheFormatVersion,
    platform: `${inputs.os}/${inputs.arch}`,
    tool: inputs.tool,
    args: withoutSecrets(canonicalJson(inputs.args ?? null), inputs.secrets),
    env: withoutSecrets(canonicalJson(inputs.env), inputs.secrets),
    secrets: secretNames,
    sources,
    generates: inputs.generates,
  };
  const hash = createHash('sha256').update(canonicalJson(material)).digest('hex');
  const envNames = Object.keys(inputs.env).sort();
  return {
    hash,
    inputs: [
      `tool ${inputs.tool} and its arguments`,
      envNames.length === 0 ? 'no variables' : `variables ${envNames.join(', ')}`,
      ...(secretNames.length === 0 ? [] : [`secrets ${secretNames.join(', ')} (whether set, never their values)`]),
      `${sources.length} source file${sources.length === 1 ? '' : 's'}`,
      `generates ${inputs.generates.length === 0 ? 'nothing' : inputs.generates.join(', ')}`,
      `platform ${material.platform}`,
      `cache format ${cacheFormatVersion}`,
    ],
  };
}
