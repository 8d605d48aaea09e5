import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EnvMode } from '../../../src/host/capability.js';
import type { RunEvent } from '../../../src/host/events.js';
import type { PreToolGate } from '../../../src/host/gates.js';
import { Policy } from '../../../src/host/policy.js';
import { ToolRegistry } from '../../../src/host/registry.js';
import type { HostEnvironment, ToolResult } from '../../../src/host/tool.js';
import { ToolHost } from '../../../src/host/tool-host.js';
import { Workspace } from '../../../src/host/workspace.js';
import { builtinTools } from '../../../src/tools/index.js';
import { cliGrantHints } from '../../../src/ui/grant-hints.js';

export { isAlive, waitUntilGone } from '../../support/processes.js';

export const scriptsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/scripts');
export const script = (name: string) => path.join(scriptsDir, name);
export const node = process.execPath;

export interface HostSetup {
  allow?: readonly string[];
  /** The host's environment; a function receives the workspace root, for a PATH entry inside it. */
  env?: Record<string, string | undefined> | ((root: string) => Record<string, string | undefined>);
  secretNames?: readonly string[];
  processEnv?: EnvMode;
  /** The workflow's `env:`, which every process step gets. */
  processVariables?: Record<string, string>;
  /** Gates run while a call is authorized: after it was prepared, before it executes. */
  gates?: readonly PreToolGate[];
}

/** A ToolHost over a fresh temp workspace with every built-in tool, recording its events. */
export class ProcessHarness {
  readonly events: RunEvent[] = [];
  private calls = 0;

  private constructor(
    readonly root: string,
    readonly host: ToolHost,
  ) {}

  static async create(setup: HostSetup = {}): Promise<ProcessHarness> {
    const root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'rho-process-')));
    const environment: HostEnvironment = {
      env: (typeof setup.env === 'function' ? setup.env(root) : setup.env) ?? { PATH: process.env.PATH },
      secretNames: setup.secretNames ?? [],
      processEnv: setup.processEnv ?? { mode: 'inherit' },
      ...(setup.processVariables && { processVariables: setup.processVariables }),
    };
    const host = new ToolHost({
      grantHints: cliGrantHints,
      workspace: await Workspace.create(root),
      policy: Policy.fromText({ allow: setup.allow ?? ['process', 'shell'] }),
      tools: new ToolRegistry(builtinTools()),
      environment,
      ...(setup.gates && { gates: setup.gates }),
    });
    const harness = new ProcessHarness(root, host);
    host.subscribe((event) => harness.events.push(event));
    return harness;
  }

  async invoke(tool: string, args: unknown, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<ToolResult> {
    const call = { id: `call-${++this.calls}`, tool, args, ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }) };
    const result = await this.host.invoke(call, options.signal);
    // Listeners get events on a later turn: once this returns, `events` has the call's events.
    await this.host.flushEvents();
    return result;
  }

  /** Stops what the run left behind and removes the workspace. */
  async dispose(): Promise<readonly string[]> {
    const notices = await this.host.dispose();
    await rm(this.root, { recursive: true, force: true });
    return notices;
  }
}

/** The data of a successful result (fails the test with the error otherwise). */
export function dataOf<T>(result: ToolResult): T {
  if (result.status !== 'success') throw new Error(`expected success, got ${result.status}: ${result.error?.message}`);
  return result.output!.data as T;
}
