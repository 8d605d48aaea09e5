import { afterEach } from 'vitest';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Approver } from '../../src/host/approval.js';
import type { RunEvent } from '../../src/host/events.js';
import type { PreToolGate } from '../../src/host/gates.js';
import type { Questioner } from '../../src/host/host-input.js';
import type { SecretMasker } from '../../src/host/masking.js';
import { Policy } from '../../src/host/policy.js';
import { ToolRegistry } from '../../src/host/registry.js';
import type { Tool, ToolResult } from '../../src/host/tool.js';
import { ToolHost } from '../../src/host/tool-host.js';
import { Workspace } from '../../src/host/workspace.js';
import { builtinTools } from '../../src/tools/index.js';
import type { TestServer } from './network/servers.js';
import { cliGrantHints } from '../../src/ui/grant-hints.js';

export interface HarnessSetup {
  allow?: readonly string[];
  ask?: readonly string[];
  deny?: readonly string[];
  questioner?: Questioner;
  approver?: Approver;
  /** Extra tools registered beside the built-ins. */
  tools?: readonly Tool[];
  /** The run's secrets, as the CLI passes them. */
  masker?: SecretMasker;
  /** Gates run while a call is authorized: after it was prepared, before it executes. */
  gates?: readonly PreToolGate[];
}

/** A ToolHost over a fresh temp workspace with the built-in tools, recording its events. */
export class HostHarness {
  readonly events: RunEvent[] = [];
  private calls = 0;

  private constructor(
    readonly root: string,
    readonly host: ToolHost,
  ) {}

  static async create(setup: HarnessSetup = {}): Promise<HostHarness> {
    const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'rho-net-')));
    const host = new ToolHost({
      grantHints: cliGrantHints,
      workspace: await Workspace.create(root),
      policy: Policy.fromText({ allow: setup.allow ?? [], ask: setup.ask ?? [], deny: setup.deny ?? [] }),
      tools: new ToolRegistry([...builtinTools(), ...(setup.tools ?? [])]),
      environment: { env: {}, secretNames: [], processEnv: { mode: 'inherit' }, ...(setup.masker && { masker: setup.masker }) },
      ...(setup.questioner && { questioner: setup.questioner }),
      ...(setup.approver && { approver: setup.approver }),
      ...(setup.gates && { gates: setup.gates }),
    });
    const harness = new HostHarness(root, host);
    host.subscribe((event) => harness.events.push(event));
    return harness;
  }

  async invoke(tool: string, args: unknown, options: { timeoutMs?: number; stepId?: string } = {}): Promise<ToolResult> {
    const result = await this.host.invoke({ id: `call-${++this.calls}`, tool, args, ...options });
    // Listeners get events on a later turn: once this returns, `events` has the call's events.
    await this.host.flushEvents();
    return result;
  }

  async dispose(): Promise<void> {
    await rm(this.root, { recursive: true, force: true });
  }
}

/** The data of a successful result (fails the test with the error otherwise). */
export function dataOf<T>(result: ToolResult): T {
  if (result.status !== 'success') throw new Error(`expected success, got ${result.status}: ${result.error?.message}`);
  return result.output!.data as T;
}

/** A test's host and local HTTP server, each disposed after the test. */
export interface HostAndServer {
  harness?: HostHarness;
  api?: TestServer;
}

export function hostAndServerPerTest(): HostAndServer {
  const state: HostAndServer = {};
  afterEach(async () => {
    await state.harness?.dispose();
    await state.api?.close();
    delete state.harness;
    delete state.api;
  });
  return state;
}
