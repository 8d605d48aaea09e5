import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveLoginTarget } from '../../src/cli/login-target.js';
import { makeTempDir, writeFiles } from '../support/cli.js';

let dir: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
  await writeFiles(dir, {
    'rho.yml': `version: 1
name: servers
inputs:
  port: { type: number, default: 3001 }
secrets: [TOKEN, CLIENT_SECRET]
tools:
  - mcp: { name: web, url: "http://127.0.0.1:\${{ inputs.port }}/mcp" }
  - mcp: { name: pad, command: [node, pad.mjs] }
  - mcp: { name: bot, url: "https://bot.example/mcp", oauth: { client_id: ci, client_secret: "\${{ secrets.CLIENT_SECRET }}" } }
  - mcp: { name: keyed, url: "https://keyed.example/mcp", headers: { Authorization: "Bearer \${{ secrets.TOKEN }}" } }
steps:
  - { id: a, tool: echo, with: { value: 1 } }
`,
  });
});
afterEach(() => cleanup());

const target = (server: string, more: { file?: string; inputs?: string[]; cwd?: string } = {}) =>
  resolveLoginTarget({ server, file: more.file, inputs: more.inputs ?? [], cwd: more.cwd ?? dir });

describe('rho mcp login SERVER', () => {
  it('takes a URL as it is', async () => {
    expect((await target('https://mcp.example.com/mcp')).href).toBe('https://mcp.example.com/mcp');
    await expect(target('ftp://mcp.example.com/')).rejects.toThrow('is not an http(s) URL');
  });

  it('finds a named server in rho.yml here or above, its url evaluated with the inputs', async () => {
    const below = path.join(dir, 'src', 'deep');
    await mkdir(below, { recursive: true });
    expect((await target('web', { cwd: below })).href).toBe('http://127.0.0.1:3001/mcp');
    expect((await target('web', { inputs: ['port=4555'] })).href).toBe('http://127.0.0.1:4555/mcp');
    await writeFiles(dir, { 'other.yml': 'version: 1\nname: o\ntools:\n  - mcp: { name: web, url: "http://127.0.0.1:9/mcp" }\nsteps: []\n' });
    expect((await target('web', { file: 'other.yml' })).href).toBe('http://127.0.0.1:9/mcp');
  });

  it('refuses a name no HTTP server of the file has, or one that takes no sign-in, saying why', async () => {
    await expect(target('nope')).rejects.toThrow('rho.yml declares no MCP server nope (servers over HTTP: web, bot, keyed)');
    await expect(target('pad')).rejects.toThrow('MCP server pad runs over stdio');
    await expect(target('bot')).rejects.toThrow("MCP server bot is authorized by its oauth: grant (client credentials, or an identity provider's ID token); it needs no sign-in");
    await expect(target('keyed')).rejects.toThrow('sends a credential header of its own');
    await expect(target('web', { inputs: ['colour=red'] })).rejects.toThrow('the workflow declares no such input');
  });
});
