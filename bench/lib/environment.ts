import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const rhoBin = path.join(repoRoot, 'bin', 'run.cjs');

/**
 * The environment every measured process gets: the bench's own, without NODE_EXTRA_CA_CERTS
 * (where it is set, every Node start reads the bundle, about 70 ms that users do not pay), and
 * without the `npm_*` variables that
 * `npm run bench` sets: they carry its npm's configuration (a CA file, the user's npmrc and
 * cache) into every npm the scripts suite starts, so `npx tsx bench/run.ts` would measure
 * another npm.
 */
export function benchEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && name !== 'NODE_EXTRA_CA_CERTS' && !name.startsWith('npm_')) env[name] = value;
  }
  return env;
}

/** Load averages over 1, 5 and 15 minutes, as `uptime` shows them. */
export function currentLoad(): [number, number, number] {
  const [one, five, fifteen] = loadavg();
  return [round(one!), round(five!), round(fifteen!)];
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
