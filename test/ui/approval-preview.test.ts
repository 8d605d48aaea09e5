import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src/host/approval.js';
import { requestFingerprint } from '../../src/host/fingerprint.js';
import { approvalHeader } from '../../src/ui/approver/index.js';
import { TestApprover } from '../host/approval-fixtures.js';
import { HostHarness } from '../tools/host-harness.js';

/** The built-in tools behind an approver that denies and records: what the prompt would show for each call. */
let harness: HostHarness | undefined;
afterEach(() => harness?.dispose());

async function promptFor(tool: string, args: unknown): Promise<{ request: ApprovalRequest; lines: string[] }> {
  const approver = new TestApprover('deny');
  harness = await HostHarness.create({ ask: ['write', 'read', 'network(127.0.0.1:9)'], approver });
  await harness.invoke(tool, args, { stepId: 'step' });
  const request = approver.asked.at(-1)!;
  // Columns are padded to the longest label: compare with single gaps.
  return {
    request,
    lines: approvalHeader(request)
      .split('\n')
      .map((line) => line.trim().replace(/ {2,}/g, '  ')),
  };
}

describe('what an approval prompt shows of what will happen', () => {
  it('a write: its size and first lines', async () => {
    const content = ['line one', 'line two \u001b[31m', 'three', 'four', 'five', 'six', 'seven', ''].join('\n');
    const { lines } = await promptFor('write_file', { path: 'notes.txt', content });
    const at = lines.indexOf('content  creates the file with 50 bytes, 7 lines');
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 1)).toEqual([
      'first lines  │ line one',
      '│ line two \\e[31m',
      '│ three',
      '│ four',
      '│ five',
      '… 2 more lines',
      'asked by  the rule ask: write',
      expect.stringMatching(/^next time/),
    ]);
  });

  it('an edit: each old text and its replacement', async () => {
    const approver = new TestApprover('allow_once');
    harness = await HostHarness.create({ ask: ['write', 'read'], approver });
    await writeFile(path.join(harness.root, 'config.txt'), 'mode = slow\n');
    await harness.invoke('edit_file', { path: 'config.txt', edits: [{ old: 'mode = slow', new: 'mode = fast' }] });
    const header = approvalHeader(approver.asked.find((request) => request.request.class === 'write')!);
    expect(header).toMatch(/content +replaces texts with 11 bytes\n +first lines +│ - mode = slow\n +│ \+ mode = fast/);
  });

  it('an HTTP request: the method, the URL without query values, that a body and credentials will be sent', async () => {
    const { request, lines } = await promptFor('http_request', {
      url: 'http://127.0.0.1:9/api/items?action=delete&token=hunter22&action=again',
      method: 'POST',
      headers: { Authorization: 'Bearer hunter22', 'X-Trace': 'abc' },
      json: { id: 7 },
    });
    const text = lines.join('\n');
    expect(text).not.toContain('hunter22');
    expect(text).not.toContain('delete');
    expect(lines).toEqual(
      expect.arrayContaining([
        'method  POST',
        'url  http://127.0.0.1:9/api/items',
        'query  action token (values not shown)',
        'body  8 bytes will be sent',
        'credentials  sends authorization (values not shown)',
        'headers  content-type x-trace',
      ]),
    );
    // A preview is shown, never remembered: the request's identity is its facts alone.
    const { preview: _preview, ...facts } = request.request as typeof request.request & { preview?: unknown };
    expect(requestFingerprint(request.request, 'http_request')).toBe(requestFingerprint(facts as typeof request.request, 'http_request'));
  });

  it('a GET without body or headers says so', async () => {
    const { lines } = await promptFor('http_request', { url: 'http://127.0.0.1:9/health' });
    expect(lines).toContain('body  none');
    expect(lines.some((line) => line.startsWith('credentials'))).toBe(false);
  });
});
