import { describe, expect, it } from 'vitest';
import type { Approver, ApprovalRequest } from '../../src/host/approval.js';
import { approvalHeader } from '../../src/ui/approver/facts.js';
import { HostHarness, hostAndServerPerTest } from './host-harness.js';
import { startServer } from './network/servers.js';

/**
 * "Allow for this run" answers one exact request. The attacks: an approval for
 * GET /echo?action=read reused for ?action=DELETE_EVERYTHING, for the same URL with an added
 * header or another body, and an approval of a process reused with other stdin.
 */
const current = hostAndServerPerTest();

/** Answers "allow for this run" the first time, "deny" every time after; records what it was asked. */
function allowOnceForTheRun(): Approver & { asked: ApprovalRequest[] } {
  const asked: ApprovalRequest[] = [];
  return {
    asked,
    async approve(request) {
      asked.push(request);
      return asked.length === 1 ? 'allow_run' : 'deny';
    },
  };
}

describe('remembered approvals match the exact request', () => {
  it('an HTTP approval covers the same query, method, headers and body, and nothing else', async () => {
    current.api = await startServer((request, response) => response.end(request.url));
    const approver = allowOnceForTheRun();
    current.harness = await HostHarness.create({ ask: [`network(${current.api!.host})`], approver });
    const approved = { url: `${current.api!.origin}/echo?action=read`, method: 'POST', headers: { 'x-mode': 'safe' }, body: 'one' };
    expect((await current.harness!.invoke('http_request', approved)).status).toBe('success');
    expect((await current.harness!.invoke('http_request', { ...approved, headers: { 'x-mode': 'safe' } })).status).toBe('success');
    expect(approver.asked).toHaveLength(1);
    const changed = [
      { ...approved, url: `${current.api!.origin}/echo?action=DELETE_EVERYTHING` },
      { ...approved, url: `${current.api!.origin}/echo` },
      { ...approved, method: 'PUT' },
      { ...approved, headers: { 'x-mode': 'safe', 'x-extra': '1' } },
      { ...approved, headers: { 'x-mode': 'unsafe' } },
      { ...approved, body: 'two' },
    ];
    for (const args of changed) {
      const result = await current.harness!.invoke('http_request', args);
      expect(result.error?.kind, JSON.stringify(args)).toBe('approval_denied');
    }
    expect(approver.asked).toHaveLength(1 + changed.length);
    expect(current.api!.requests.map((request) => request.url)).toEqual(['/echo?action=read', '/echo?action=read']);
  });

  it('a process approval covers the same stdin, and nothing else', async () => {
    const approver = allowOnceForTheRun();
    current.harness = await HostHarness.create({ ask: ['process'], approver });
    const approved = { command: process.execPath, args: ['-e', 'process.stdin.pipe(process.stdout)'], stdin: 'harmless' };
    expect((await current.harness!.invoke('exec', approved)).status).toBe('success');
    expect((await current.harness!.invoke('exec', approved)).status).toBe('success');
    expect((await current.harness!.invoke('exec', { ...approved, stdin: 'rm -rf /' })).error?.kind).toBe('approval_denied');
    const { stdin: _stdin, ...withoutStdin } = approved;
    expect((await current.harness!.invoke('exec', withoutStdin)).error?.kind).toBe('approval_denied');
    expect(approver.asked).toHaveLength(3);
  });

  it('the approval prompt names the query parameters and headers but never shows a query, header or body value', async () => {
    current.api = await startServer((_request, response) => response.end('ok'));
    const approver = allowOnceForTheRun();
    current.harness = await HostHarness.create({ ask: [`network(${current.api!.host})`], approver });
    await current.harness!.invoke('http_request', { url: `${current.api!.origin}/x?token=q-secret-1`, method: 'POST', headers: { 'X-Api-Key': 'h-secret-2' }, body: 'b-secret-3' });
    const shown = approvalHeader(approver.asked[0]!);
    expect(shown).toMatch(/credentials +sends x-api-key \(values not shown\)/);
    expect(shown).toMatch(/query +token \(values not shown\)/);
    expect(shown).not.toMatch(/q-secret-1|h-secret-2|b-secret-3/);
    expect(JSON.stringify(current.harness!.events)).not.toMatch(/q-secret-1|h-secret-2|b-secret-3/);
  });
});
