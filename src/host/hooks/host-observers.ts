import type { CapabilityRequest } from '../capability.js';
import type { RunEvent } from '../events.js';
import type { ToolCall } from '../prepared-call.js';
import type { ToolResult } from '../tool.js';
import type { RunObserver } from '../run-observer.js';
import { defaultPayloadBounds, type PayloadBounds } from './bounds.js';
import { afterToolUseCapability } from './capability-summary.js';
import { observedEnvelope, type Delegation, type EnvelopeContext } from './envelope.js';
import type { HostLabels } from './labels.js';
import { HookLatency } from './latency.js';
import { defaultDrainTimeoutMs, defaultObserverCapacity, ObserverQueue, type AsyncHookObserver, type ObserverDrainReport } from './observer.js';
import type { HookSourceEvent } from './payloads.js';
import { HookEventReader } from './run-events.js';

/** Observers an embedder gives a host, with the seeds' hook options: identity, labels and payload bounds. */
export interface HostHookOptions {
  observers: readonly AsyncHookObserver[];
  /** Defaults to a fresh id per host. */
  runId?: string;
  sessionId?: string;
  /** Whether this host runs a delegated (child) task; a root run by default. */
  delegation?: Delegation;
  labels?: HostLabels;
  bounds?: PayloadBounds;
  /** Events that may wait for one observer; more are dropped and counted. */
  capacity?: number;
  /** How long `dispose()` waits for observers to catch up. */
  drainTimeoutMs?: number;
  /** Masks secrets in every string of every envelope. */
  redact?: (text: string) => string;
  /** Observer failures and drops; they never fail anything. */
  onWarning?: (message: string) => void;
}

/**
 * Feeds a host's events to observers as bounded, redacted hook envelopes, off the call's path:
 * a slow or failing observer never slows or changes a call. Pass it as `ToolHost`'s `observer`.
 */
export class HostObservers implements RunObserver {
  private readonly queue: ObserverQueue;
  private readonly context: EnvelopeContext;
  private readonly reader: HookEventReader;
  private readonly drainTimeoutMs: number;

  constructor(options: HostHookOptions) {
    const runId = options.runId ?? crypto.randomUUID();
    this.context = {
      runId,
      sessionId: options.sessionId ?? runId,
      delegation: options.delegation ?? { role: 'root' },
      hostLabels: options.labels ?? {},
      bounds: options.bounds ?? defaultPayloadBounds,
      ...(options.redact && { redact: options.redact }),
    };
    this.queue = new ObserverQueue(options.observers, {
      capacity: options.capacity ?? defaultObserverCapacity,
      latency: new HookLatency(),
      onWarning: options.onWarning ?? (() => {}),
    });
    this.reader = new HookEventReader();
    this.drainTimeoutMs = options.drainTimeoutMs ?? defaultDrainTimeoutMs;
  }

  event(event: RunEvent): void {
    const source = this.reader.read(event);
    if (source) this.notify(source);
  }

  callFinished(call: ToolCall, result: ToolResult, authorized: CapabilityRequest | undefined): void {
    this.notify({ kind: 'after_tool_use', stepId: call.stepId, result, capability: afterToolUseCapability(authorized ? [authorized] : [], true), delegation: call.delegation });
  }

  drain(): Promise<ObserverDrainReport> {
    return this.queue.drain(this.drainTimeoutMs);
  }

  private notify(source: HookSourceEvent): void {
    this.queue.observe(observedEnvelope(source, this.context));
  }
}
