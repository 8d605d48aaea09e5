/** The provider-free hook machinery an embedder uses: envelopes, bounds, observers and test helpers. */
export { hookEventKinds, observedKinds, type HookEventKind, type ObservedKind } from './kinds.js';
export {
  buildEnvelope,
  rootEnvelopeContext,
  hookEnvelopeSchema,
  hookSchemaVersion,
  type Delegation,
  type EnvelopeContext,
  type HookEnvelope,
  type HookEnvelopeOf,
} from './envelope.js';
export { defaultPayloadBounds, type PayloadBounds, type Truncation, type TruncatedField } from './bounds.js';
export { parseHostLabels, type HostLabels } from './labels.js';
export { afterToolUseCapability, summarizeCapability, type CapabilitySummary } from './capability-summary.js';
export { beforeToolUsePayload, hookPayloadFor, type HookPayloads, type HookSourceEvent, type StepStatus } from './payloads.js';
export {
  ObserverQueue,
  type AsyncHookObserver,
  type HookObserver,
  type ObserverDrainReport,
  type ObserverLaneReport,
  type ObserverQueueOptions,
} from './observer.js';
export { HostObservers, type HostHookOptions } from './host-observers.js';
export { HookEventReader } from './run-events.js';
export { HookLatency, type HookLatencyEntry, type HookLatencyReport } from './latency.js';
export { sampleEnvelope, sampleGateInput, sampleNetworkRequest, sampleProcessRequest, sampleShellRequest } from './testing.js';
