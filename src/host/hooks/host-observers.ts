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

/** Who a run's hook envelopes say they come from, and how large they may be. */
export interface HookIdentity {
  /** Defaults to a fresh id per host. */
  runId?: string;
  sessionId?: string;
  /** Whether this host runs a delegated (child) task; a root run by default. */
  delegation?: Delegation;
  labels?: HostLabels;
  bounds?: PayloadBounds;
  /** Masks secrets in every string of every envelope. */
  redact?: (text: string) => string;
}

/** The context every envelope of a run is built with; gates and observers of one run share it. */
export function envelopeContextOf(identity: HookIdentity): EnvelopeContext {
  const runId = identity.runId ?? crypto.randomUUID();
  return {
    runId,
    sessionId: identity.sessionId ?? runId,
    delegation: identity.delegation ?? { role: 'root' },
    hostLabels: identity.labels ?? {},
    bounds: identity.bounds ?? defaultPayloadBounds,
    redact: identity.redact,
  };
}

/** Observers an embedder gives a host, with the seeds' hook options: identity, labels and payload bounds. */
export interface HostHookOptions extends HookIdentity {
  observers: readonly AsyncHookObserver[];
  /** Events that may wait for one observer; more are dropped and counted. */
  capacity?: number;
  /** How long `dispose()` waits for observers to catch up. */
  drainTimeoutMs?: number;
  /** Observer failures and drops; they never fail anything. */
  onWarning?: (message: string) => void;
  /** Where the observers' latency is counted: shared with a run's gates, for one summary. */
  latency?: HookLatency;
  /** The envelope context of a run's gates, when the observers share it; otherwise built from the identity above. */
  context?: EnvelopeContext;
}

/**
 * Feeds a host's events to observers as bounded, redacted hook envelopes, off the call's path:
 * a slow or failing observer never slows or changes a call. Pass it as `ToolHost`'s `observer`.
 */
export class HostObservers implements RunObserver {
  /** The identity and bounds every envelope of these observers uses. */
  readonly context: EnvelopeContext;
  private readonly queue: ObserverQueue;
  private readonly reader = new HookEventReader();
  private readonly drainTimeoutMs: number;

  constructor(options: HostHookOptions) {
    this.context = options.context ?? envelopeContextOf(options);
    this.queue = new ObserverQueue(options.observers, {
      capacity: options.capacity ?? defaultObserverCapacity,
      latency: options.latency ?? new HookLatency(),
      onWarning: options.onWarning ?? (() => {}),
    });
    this.drainTimeoutMs = options.drainTimeoutMs ?? defaultDrainTimeoutMs;
  }

  event(event: RunEvent): void {
    const source = this.reader.read(event);
    if (source) this.notify(source);
  }

  callFinished(call: ToolCall, result: ToolResult, authorized: CapabilityRequest | undefined): void {
    this.notify({ kind: 'after_tool_use', stepId: call.stepId, result, capability: afterToolUseCapability(authorized ? [authorized] : [], true), delegation: call.delegation });
  }

  /** Builds the envelope of an observed event and queues it for every observer; returns at once. */
  notify(source: HookSourceEvent): void {
    if (this.queue.size === 0) return;
    this.queue.observe(observedEnvelope(source, this.context));
  }

  /** Waits for the observers to catch up, up to the drain deadline. */
  drain(): Promise<ObserverDrainReport> {
    return this.queue.drain(this.drainTimeoutMs);
  }
}
