import path from 'node:path';

/** The fixture that reaches URLs and sockets the ways programs do, printing one JSON line (test/fixtures/scripts/proxy-client.mjs). */
export const proxyClient = path.resolve(import.meta.dirname, '../fixtures/scripts/proxy-client.mjs');

/** Each step's one JSON line, from plain output (`[step] {...}`). */
export function answers(stdout: string): Record<string, unknown> {
  const found: Record<string, unknown> = {};
  for (const match of stdout.matchAll(/^\[([a-z_]+)\] (\{.*\})$/gm)) found[match[1]!] = JSON.parse(match[2]!);
  return found;
}
