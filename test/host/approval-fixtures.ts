import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ApprovalAnswer, ApprovalRequest, Approver } from '../../src/host/approval.js';
import { Authorizer, type ScriptedApprovals, type ScriptedDecision } from '../../src/host/authorization.js';
import type { CapabilityRequest, NetworkRequest, ProcessRequest, ShellRequest } from '../../src/host/capability.js';
import type { HostEvent } from '../../src/host/events.js';
import type { PreToolGate } from '../../src/host/gates.js';
import { defaultPort, normalizeHost, normalizeHostname } from '../../src/host/network-host.js';
import { Policy, type PolicyEvaluator } from '../../src/host/policy.js';
import { parseRule } from '../../src/host/rules.js';
import { Workspace } from '../../src/host/workspace.js';
import { cliGrantHints } from '../../src/ui/grant-hints.js';

/** A workspace with a few files, a symlink to a secret, and a granted root beside it. */
export interface Sandbox {
  base: string;
  root: string;
  granted: string;
  workspace: Workspace;
  cleanup(): Promise<void>;
}

export async function makeSandbox(): Promise<Sandbox> {
  const base = await mkdtemp(path.join(os.tmpdir(), 'rho-approvals-'));
  const root = path.join(base, 'ws');
  const granted = path.join(base, 'cache');
  for (const dir of ['src/lib', 'dist', 'docs', 'bin', 'sub']) await mkdir(path.join(root, dir), { recursive: true });
  await mkdir(granted);
  await writeFile(path.join(root, 'src/a.ts'), 'a');
  await writeFile(path.join(root, 'src/lib/b.ts'), 'b');
  await writeFile(path.join(root, 'docs/readme.md'), 'r');
  await writeFile(path.join(root, '.env'), 'SECRET=1');
  await writeFile(path.join(root, 'bin/tool'), '#!/bin/sh\n');
  await writeFile(path.join(root, 'odd [1] (x).txt'), 'odd');
  await writeFile(path.join(granted, 'c.txt'), 'c');
  await symlink(path.join(root, '.env'), path.join(root, 'docs/env-link'));
  const workspace = await Workspace.create(root, { grantedRoots: [granted] });
  return { base, root: workspace.root, granted: workspace.grantedRoots[0]!, workspace, cleanup: () => rm(base, { recursive: true, force: true }) };
}

export function processRequest(overrides: Partial<Omit<ProcessRequest, 'class' | 'invocation'>> = {}): ProcessRequest {
  return {
    class: 'process',
    invocation: 'direct',
    cwd: '/w',
    executable: { requested: 'npm', resolved: '/usr/bin/npm', lookup: 'path_search' },
    argv: ['publish', '--tag', 'next'],
    envMode: { mode: 'inherit' },
    env: {},
    outputLimitBytes: 1_048_576,
    wallLimitMs: 30_000,
    ...overrides,
  };
}

export function shellRequest(overrides: Partial<Omit<ShellRequest, 'class' | 'invocation'>> = {}): ShellRequest {
  const { class: _class, invocation: _invocation, ...facts } = processRequest();
  return { ...facts, class: 'shell', invocation: 'shell', shell: 'sh', script: 'echo hi', ...overrides };
}

export function networkRequest(url: string, method = 'GET'): NetworkRequest {
  const parsed = new URL(url);
  const scheme = parsed.protocol === 'http:' ? 'http' : 'https';
  const port = parsed.port === '' ? defaultPort(scheme) : Number(parsed.port);
  const host = normalizeHost(parsed.host, scheme);
  return { class: 'network', method, scheme, host, hostname: normalizeHostname(parsed.hostname), port, url: `${scheme}://${parsed.host}${parsed.pathname}` };
}

export async function readRequest(workspace: Workspace, requested: string, target: 'file' | 'tree' = 'file'): Promise<CapabilityRequest> {
  return { class: 'read', path: await workspace.resolveForRead(requested), target };
}

export async function writeRequest(workspace: Workspace, requested: string): Promise<CapabilityRequest> {
  return { class: 'write', path: await workspace.resolveForWrite(requested) };
}

/** An approver a test controls: it records each request and answers with `answer` (or waits for `release`). */
export class TestApprover implements Approver {
  readonly asked: ApprovalRequest[] = [];
  readonly signals: AbortSignal[] = [];
  private readonly pending: Array<(answer: ApprovalAnswer) => void> = [];

  constructor(private readonly answer: ApprovalAnswer | 'wait' = 'allow_once') {}

  approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    this.asked.push(request);
    this.signals.push(signal);
    if (this.answer !== 'wait') return Promise.resolve(this.answer);
    return new Promise((resolve) => this.pending.push(resolve));
  }

  /** Answers the oldest waiting request. */
  release(answer: ApprovalAnswer): void {
    const next = this.pending.shift();
    if (!next) throw new Error('no approval is waiting');
    next(answer);
  }

  get waiting(): number {
    return this.pending.length;
  }
}

export interface AuthorizerSetup {
  policy?: PolicyEvaluator | { allow?: string[]; ask?: string[]; deny?: string[] };
  approver?: Approver;
  approve?: string[];
  yes?: boolean;
  gates?: PreToolGate[];
  root?: string;
}

export function makeAuthorizer(setup: AuthorizerSetup = {}) {
  const events: HostEvent[] = [];
  const echoed: ScriptedDecision[] = [];
  const scripted: ScriptedApprovals = {
    rules: (setup.approve ?? []).map((rule) => parseRule(rule)),
    yes: setup.yes ?? false,
    onDecision: (decision) => echoed.push(decision),
  };
  const policy = setup.policy && 'evaluate' in setup.policy ? setup.policy : Policy.fromText(setup.policy ?? {});
  // The wording the CLI shows: these tests check that a denial names the flag that grants it.
  const authorizer = new Authorizer({
    hints: cliGrantHints,
    policy,
    workspaceRoot: setup.root ?? '/w',
    gates: setup.gates ?? [],
    scripted,
    approver: setup.approver,
    emit: (_callId, event) => events.push(event),
  });
  return { authorizer, events, echoed };
}

export const subject = (stepId = 'publish') => ({ callId: `call-${stepId}`, stepId, tool: 'exec', source: 'built-in' as const });

/** Waits until queued promise callbacks have run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
