import type { NetworkRequest, ProcessRequest, ShellRequest } from '../capability.js';
import { defaultPort, normalizeHost, normalizeHostname } from '../network-host.js';
import type { GateInput } from '../gates.js';
import { afterToolUseCapability } from './capability-summary.js';
import { buildEnvelope, rootEnvelopeContext, type EnvelopeContext, type HookEnvelopeOf } from './envelope.js';
import type { HookEventKind, ObservedKind } from './kinds.js';
import { beforeToolUsePayload, hookPayloadFor, type HookPayloads, type HookSourceEvent } from './payloads.js';

/**
 * Sample requests and envelopes for tests of gates and observers, without standing up a run.
 * Path-bearing requests need a `Workspace` to resolve their paths, so they are not built here.
 */

export function sampleProcessRequest(overrides: Partial<Omit<ProcessRequest, 'class' | 'invocation'>> = {}): ProcessRequest {
  return {
    class: 'process',
    invocation: 'direct',
    cwd: '/workspace',
    executable: { requested: 'ls', resolved: '/usr/bin/ls', lookup: 'path_search' },
    argv: ['-la'],
    envMode: { mode: 'inherit' },
    env: {},
    outputLimitBytes: 1024 * 1024,
    wallLimitMs: 30_000,
    ...overrides,
  };
}

export function sampleShellRequest(script: string, overrides: Partial<Omit<ShellRequest, 'class' | 'invocation' | 'script'>> = {}): ShellRequest {
  const { executable: _executable, argv: _argv, ...process } = sampleProcessRequest();
  return {
    ...process,
    class: 'shell',
    invocation: 'shell',
    shell: 'sh',
    executable: { requested: 'sh', resolved: '/bin/sh', lookup: 'path_search' },
    argv: ['-c', script],
    script,
    ...overrides,
  };
}

export function sampleNetworkRequest(url: string, method = 'GET'): NetworkRequest {
  const parsed = new URL(url);
  const scheme = parsed.protocol === 'http:' ? 'http' : 'https';
  const port = parsed.port === '' ? defaultPort(scheme) : Number(parsed.port);
  return { class: 'network', method, scheme, host: normalizeHost(parsed.host, scheme), hostname: normalizeHostname(parsed.hostname), port, url };
}

export function sampleGateInput(overrides: Partial<GateInput> = {}): GateInput {
  return { callId: 'call-1', stepId: 'step-1', tool: 'exec', source: 'built-in', request: sampleProcessRequest(), policyDecision: 'allow', ...overrides };
}

const samplePayloads: { [K in HookEventKind]: () => HookPayloads[K] } = {
  session_started: () => payloadOf({ kind: 'session_started', workflow: 'sample', workspaceRoot: '/workspace' }),
  step_started: () => payloadOf({ kind: 'step_started', stepId: 'step-1', tool: 'exec' }),
  before_tool_use: () => beforeToolUsePayload(sampleGateInput()),
  after_tool_use: () =>
    payloadOf({
      kind: 'after_tool_use',
      stepId: 'step-1',
      result: { callId: 'call-1', tool: 'exec', status: 'success', output: { text: '' }, durationMs: 12 },
      capability: afterToolUseCapability([sampleProcessRequest()], true),
    }),
  step_finished: () => payloadOf({ kind: 'step_finished', stepId: 'step-1', tool: 'exec', status: 'success', durationMs: 12, errorKind: undefined }),
  run_completed: () => payloadOf({ kind: 'run_completed', exitCode: 0, durationMs: 40, counts: { success: 1 } }),
  run_failed: () =>
    payloadOf({
      kind: 'run_failed',
      exitCode: 1,
      durationMs: 40,
      counts: { failure: 1 },
      failedStep: 'step-1',
      errorKind: 'execution_failed',
    }),
};

/** A plausible envelope of the given kind (a root run with id `run-1` unless the context says otherwise). */
export function sampleEnvelope<K extends HookEventKind>(kind: K, context: EnvelopeContext = rootEnvelopeContext('run-1')): HookEnvelopeOf<K> {
  return buildEnvelope(kind, samplePayloads[kind](), context);
}

function payloadOf<K extends ObservedKind>(event: HookSourceEvent & { kind: K }): HookPayloads[K] {
  return hookPayloadFor(event).payload as HookPayloads[K];
}
