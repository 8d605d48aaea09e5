import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NetworkRequest } from '../../src/host/capability.js';
import { afterToolUseCapability } from '../../src/host/hooks/capability-summary.js';
import { hookEnvelopeSchema } from '../../src/host/hooks/envelope.js';
import { sampleProcessRequest, sampleShellRequest } from '../../src/host/hooks/testing.js';
import { trustedSearchPath } from '../../src/tools/process/trusted-programs.js';
import { fixture, hostWith, inlineHooks, requestingTool } from './harness.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'rho-hooks-safety-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const canaries = {
  apiKey: 'canary-apikey-7f3a',
  token: 'canary-token-91bc',
  aws: 'canary-aws-55de',
  declared: 'canary-declared-0a1b',
  userInfo: 'canary-pass-3c3c',
  query: 'canary-query-4d4d',
  authorization: 'canary-authorization-2b2b',
  cookie: 'canary-cookie-9e9e',
  output: 'canary-output-6e6e',
  image: 'Y2FuYXJ5LWltYWdlLWJ5dGVz',
  masked: 'canary-masked-8f8f',
};

function lines(text: string): Record<string, unknown>[] {
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('what reaches a hook', () => {
  it('never includes credentials, env values, headers, URL queries, tool output or image bytes', async () => {
    const gateLog = path.join(dir, 'gate.jsonl');
    const observerLog = path.join(dir, 'observer.jsonl');
    const hooks = await inlineHooks(
      {
        pre_tool_use: [{ name: 'recorder', command: fixture('record-input.mjs', gateLog) }],
        observer: [{ name: 'appender', command: fixture('append-envelope.mjs', observerLog) }],
      },
      {
        env: {
          PATH: process.env.PATH,
          SERVICE_API_KEY: canaries.apiKey,
          GITHUB_TOKEN: canaries.token,
          AWS_SECRET_ACCESS_KEY: canaries.aws,
          DEPLOY_CODE: canaries.declared,
        },
        secretNames: ['DEPLOY_CODE'],
        redact: (text) => text.replaceAll(canaries.masked, '***'),
      },
    );
    const toolOutput = { text: `got ${canaries.output}`, data: { body: canaries.output }, images: [{ mediaType: 'image/png', data: canaries.image }] };
    const http = requestingTool(
      'fake_http',
      (args): NetworkRequest[] => [{ class: 'network', method: 'GET', scheme: 'https', host: 'api.example.org', hostname: 'api.example.org', port: 443, url: String(args.url) }],
      toolOutput,
    );
    const exec = requestingTool('fake_exec', () => [
      sampleProcessRequest({
        cwd: dir,
        executable: { requested: 'rm', resolved: '/bin/rm', lookup: 'path_search' },
        argv: ['-rf', 'build/'],
        env: { GITHUB_TOKEN: canaries.token },
      }),
    ]);
    const shell = requestingTool('fake_shell', () => [sampleShellRequest(`rm -rf "$HOME/cache" # ${canaries.masked}`, { cwd: dir })]);
    const host = await hostWith({ root: dir, tools: [http, exec, shell], policy: { allow: ['network', 'process', 'shell'] }, gates: hooks.gates });

    hooks.notify({ kind: 'session_started', workflow: 'safety', workspaceRoot: dir });
    const calls: [string, unknown][] = [
      [
        'fake_http',
        {
          url: `https://user:${canaries.userInfo}@api.example.org/v1/items?token=${canaries.query}#top`,
          headers: { Authorization: `Bearer ${canaries.authorization}`, Cookie: `session=${canaries.cookie}` },
        },
      ],
      ['fake_exec', { command: 'rm', args: ['-rf', 'build/'], env: { GITHUB_TOKEN: canaries.token } }],
      ['fake_shell', { script: 'rm -rf' }],
    ];
    // Each call on the host's one path (gates run during it), then the observers are told.
    const signal = new AbortController().signal;
    for (const [index, [tool, args]] of calls.entries()) {
      const call = { id: `call-${index}`, tool, args };
      const prepared = await host.preview(call, signal);
      if (!('requests' in prepared)) throw prepared;
      const result = await host.invoke(call, signal);
      expect(result.status).toBe('success');
      hooks.notify({ kind: 'after_tool_use', stepId: tool, result, capability: afterToolUseCapability(prepared.requests, true) });
    }
    const drained = await hooks.finish();
    expect(drained.observers).toEqual([{ name: 'appender', delivered: 4, failed: 0, dropped: 0 }]);

    const gateText = await readFile(gateLog, 'utf8');
    const observerText = await readFile(observerLog, 'utf8');
    for (const canary of Object.values(canaries)) {
      expect(gateText).not.toContain(canary);
      expect(observerText).not.toContain(canary);
    }

    const seenByGate = lines(gateText) as { stdin: string; env: Record<string, string>; argv: string[] }[];
    expect(seenByGate).toHaveLength(3);
    const envelopes = seenByGate.map((seen) => hookEnvelopeSchema.parse(JSON.parse(seen.stdin)));
    expect(envelopes.map((envelope) => envelope.kind === 'before_tool_use' && envelope.payload.capability)).toEqual([
      expect.objectContaining({ class: 'network', url: 'https://api.example.org/v1/items', description: 'GET https://api.example.org/v1/items' }),
      expect.objectContaining({ class: 'process', argv: ['-rf', 'build/'], env_names: ['GITHUB_TOKEN'] }),
      expect.objectContaining({ class: 'shell', script: 'rm -rf "$HOME/cache" # ***' }),
    ]);
    for (const seen of seenByGate) {
      expect(seen.env.PATH).toBe(trustedSearchPath());
      expect(Object.keys(seen.env)).not.toContain('GITHUB_TOKEN');
      expect(seen.argv.slice(1)).toEqual([path.join(path.dirname(seen.argv[1]!), 'record-input.mjs'), gateLog]);
    }

    const observed = lines(observerText).map((envelope) => hookEnvelopeSchema.parse(envelope));
    expect(observed.map((envelope) => envelope.kind)).toEqual(['session_started', 'after_tool_use', 'after_tool_use', 'after_tool_use']);
    expect(observed[1]).toMatchObject({ kind: 'after_tool_use', payload: { tool: 'fake_http', status: 'success', capability: { class: 'network' } } });
  });
});
