import type { ResourceAccess, ResourceKind } from './resources.js';

/** What a call will touch; `exclusive` means it cannot say, so it runs alone and is a barrier in model order. */
export type Declaration = readonly ResourceAccess[] | 'exclusive';

/** Why a call that asked to start has not started yet. */
export type WaitReason =
  | { kind: 'slot' }
  | { kind: 'undeclared'; index: number }
  | { kind: 'conflict'; index: number; resourceKind: ResourceKind }
  | { kind: 'barrier'; index: number };

/** A reason that names the earlier call holding this one back. */
export type Blocker = Exclude<WaitReason, { kind: 'slot' }>;
