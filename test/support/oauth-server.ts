import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { repoRoot } from './cli.js';

const fixture = path.join(repoRoot, 'test/extensions/fixtures/oauth-server.mjs');

/** What the fixture was asked, in order: paths, the grant type of each token request, and the grant its identity provider issued. */
export interface SeenRequest {
  path: string;
  grant?: string;
  issued?: string;
}

export interface OauthServer {
  port: string;
  /** Its MCP endpoint on 127.0.0.1. */
  endpoint: string;
  seen: SeenRequest[];
  stop(): void;
}

/** Starts test/extensions/fixtures/oauth-server.mjs (with `args`) and waits for its port. */
export async function startOauthServer(args: readonly string[] = []): Promise<OauthServer> {
  const server = spawn(process.execPath, [fixture, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: server.stdout });
  const port = await new Promise<string>((resolve) => lines.once('line', resolve));
  const seen: SeenRequest[] = [];
  lines.on('line', (line) => seen.push(JSON.parse(line) as SeenRequest));
  return { port, endpoint: `http://127.0.0.1:${port}/mcp`, seen, stop: () => server.kill() };
}
