/** What a call touches, declared before it runs so the scheduler can overlap safe calls. */
export type Resource =
  | { kind: 'path'; path: string }
  | { kind: 'tree'; path: string }
  | { kind: 'process'; id: string }
  | { kind: 'session' }
  | { kind: 'key'; owner: string; key: string };

export type AccessMode = 'shared' | 'exclusive';

export interface ResourceAccess {
  mode: AccessMode;
  resource: Resource;
}

export const shared = (resource: Resource): ResourceAccess => ({ mode: 'shared', resource });
export const exclusive = (resource: Resource): ResourceAccess => ({ mode: 'exclusive', resource });
