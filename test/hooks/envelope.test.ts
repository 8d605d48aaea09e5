import { describe, expect, it } from 'vitest';
import type { CapabilityRequest } from '../../src/host/capability.js';
import { cutUtf8, utf8Length } from '../../src/host/hooks/bounds.js';
import { buildEnvelope, hookEnvelopeSchema, hookSchemaVersion, rootEnvelopeContext } from '../../src/host/hooks/envelope.js';
import { hookEventKinds } from '../../src/host/hooks/kinds.js';
import { parseHostLabels } from '../../src/host/hooks/labels.js';
import { beforeToolUsePayload } from '../../src/host/hooks/payloads.js';
import { sampleEnvelope, sampleGateInput, sampleProcessRequest, sampleShellRequest } from '../../src/host/hooks/testing.js';

const context = rootEnvelopeContext('run-1');

function gateEnvelope(request: CapabilityRequest = sampleProcessRequest(), overrides: Partial<typeof context> = {}) {
  return buildEnvelope('before_tool_use', beforeToolUsePayload(sampleGateInput({ request })), { ...context, ...overrides });
}

describe('envelopes', () => {
  it('carry schema version 2, the run identity, delegation and host labels', () => {
    const envelope = gateEnvelope(sampleProcessRequest(), {
      sessionId: 'session-7',
      delegation: { role: 'child', parent: 'run-0' },
      hostLabels: { ci_job: '1234' },
    });
    expect(envelope).toMatchObject({
      schema_version: hookSchemaVersion,
      kind: 'before_tool_use',
      run_id: 'run-1',
      session_id: 'session-7',
      delegation: { role: 'child', parent: 'run-0' },
      host_labels: { ci_job: '1234' },
      payload: { tool: 'exec', call_id: 'call-1', step_id: 'step-1', policy_decision: 'allow', capability: { class: 'process' } },
      truncation: { truncated: false, fields: [] },
    });
    expect(hookSchemaVersion).toBe(2);
  });

  it.each(hookEventKinds)('sample %s envelopes match the published schema', (kind) => {
    expect(hookEnvelopeSchema.parse(sampleEnvelope(kind)).kind).toBe(kind);
  });
});

describe('payload bounds', () => {
  it('cut a field over 8 KiB and report it', () => {
    const script = 'x'.repeat(9000);
    const envelope = gateEnvelope(sampleShellRequest(script));
    expect(envelope.payload.capability).toMatchObject({ class: 'shell', script: 'x'.repeat(8192) });
    expect(envelope.truncation).toEqual({
      truncated: true,
      fields: [
        { field: 'payload.capability.argv[1]', limit: 'field', unit: 'bytes', original: 9000, kept: 8192 },
        { field: 'payload.capability.script', limit: 'field', unit: 'bytes', original: 9000, kept: 8192 },
      ],
    });
    expect(hookEnvelopeSchema.safeParse(envelope).success).toBe(true);
  });

  it('keep the whole envelope within 64 KiB, reporting every cut', () => {
    const argv = Array.from({ length: 20 }, (_, index) => `${index}`.padEnd(8000, '.'));
    const envelope = gateEnvelope(sampleProcessRequest({ argv }));
    const size = utf8Length(JSON.stringify(envelope));
    expect(size).toBeLessThanOrEqual(64 * 1024);
    expect(size).toBeGreaterThan(60 * 1024);
    const capability = envelope.payload.capability;
    if (capability.class !== 'process') throw new Error('expected a process request');
    const kept = capability.argv.reduce((sum, arg) => sum + arg.length, 0);
    expect(kept).toBeLessThan(20 * 8000);
    const reported = new Map(envelope.truncation.fields.map((field) => [field.field, field]));
    capability.argv.forEach((arg, index) => {
      const original = argv[index]!;
      if (arg !== original) expect(reported.get(`payload.capability.argv[${index}]`)).toMatchObject({ original: 8000, kept: arg.length });
      else expect(reported.has(`payload.capability.argv[${index}]`)).toBe(false);
    });
    expect(envelope.truncation.truncated).toBe(true);
    expect(envelope.truncation.fields.every((field) => field.limit === 'envelope')).toBe(true);
  });

  it('shorten long lists once strings are small, and report the list', () => {
    const argv = Array.from({ length: 20_000 }, (_, index) => `a${index}`);
    const envelope = gateEnvelope(sampleProcessRequest({ argv }));
    expect(utf8Length(JSON.stringify(envelope))).toBeLessThanOrEqual(64 * 1024);
    expect(envelope.truncation.fields).toContainEqual({
      field: 'payload.capability.argv',
      limit: 'envelope',
      unit: 'items',
      original: 20_000,
      kept: envelope.payload.capability.class === 'process' ? envelope.payload.capability.argv.length : -1,
    });
  });

  it('are configurable', () => {
    const envelope = gateEnvelope(sampleShellRequest('y'.repeat(2000)), { bounds: { fieldBytes: 1000, envelopeBytes: 16 * 1024 } });
    expect(envelope.truncation.fields).toContainEqual({ field: 'payload.capability.script', limit: 'field', unit: 'bytes', original: 2000, kept: 1000 });
  });

  it('apply to host labels too', () => {
    const envelope = gateEnvelope(sampleProcessRequest(), { hostLabels: { ticket: 'z'.repeat(9000) } });
    expect(envelope.host_labels.ticket).toHaveLength(8192);
    expect(envelope.truncation.fields).toEqual([{ field: 'host_labels.ticket', limit: 'field', unit: 'bytes', original: 9000, kept: 8192 }]);
  });

  it('never split a character', () => {
    expect(cutUtf8('é'.repeat(10), 5)).toBe('éé');
    expect(cutUtf8('a😀b', 4)).toBe('a');
    const envelope = gateEnvelope(sampleShellRequest('é'.repeat(5000)));
    const script = envelope.payload.capability.class === 'shell' ? envelope.payload.capability.script : '';
    expect(script).toBe('é'.repeat(4096));
  });

  it('mask secrets before measuring', () => {
    const envelope = gateEnvelope(sampleShellRequest('deploy --key s3cr3t-value'), { redact: (text) => text.replaceAll('s3cr3t-value', '***') });
    expect(JSON.stringify(envelope)).not.toContain('s3cr3t-value');
    expect(envelope.payload.capability).toMatchObject({ script: 'deploy --key ***' });
  });
});

describe('host labels', () => {
  it('parse KEY=VALUE and refuse bad keys', () => {
    expect(parseHostLabels(['ci_job=12', 'ticket=A=B'])).toEqual({ ci_job: '12', ticket: 'A=B' });
    expect(() => parseHostLabels(['novalue'])).toThrow(/KEY=VALUE/);
    expect(() => parseHostLabels(['9lives=x'])).toThrow(/label key/);
  });
});
