import type { Decider } from './approval.js';
import type { CapabilityClass, CapabilityRequest } from './capability.js';
import type { HostInputSource } from './host-input.js';
import type { ToolProgress, ToolResult } from './tool.js';

/**
 * The typed events the host emits: the only link between the host and whatever shows or
 * records a run (renderers, NDJSON, hooks' observers, the audit).
 */
export type HostEvent =
  | { type: 'call_started'; callId: string; stepId: string | undefined; tool: string }
  | ({ type: 'call_progress'; callId: string; stepId: string | undefined } & ToolProgress)
  | { type: 'approval_requested'; seq: number; callId: string; stepId: string | undefined; class: CapabilityClass }
  | {
      type: 'approval_decided';
      seq: number;
      callId: string;
      stepId: string | undefined;
      class: CapabilityClass;
      result: 'allow' | 'deny';
      decider: Decider;
    }
  | { type: 'question_asked'; callId: string; stepId: string | undefined; questionIds: readonly string[] }
  | { type: 'question_answered'; callId: string; stepId: string | undefined; source: HostInputSource }
  | {
      type: 'call_finished';
      callId: string;
      stepId: string | undefined;
      result: ToolResult;
      /** The first request the call put to the authorization path (allowed or not), if any. */
      authorized: CapabilityRequest | undefined;
    };

export type HostEventType = HostEvent['type'];
export type EventSink = (event: HostEvent) => void;

/** One audit entry: deliberately free of paths, commands, arguments, env values, URLs and bodies. */
export interface AuditRecord {
  seq: number;
  class: CapabilityClass;
  result: 'allow' | 'deny';
  decider: Decider;
}
