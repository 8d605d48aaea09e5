import path from 'node:path';
import { z } from 'zod';
import type { Approver } from '../../src/host/approval.js';
import type { CapabilityRequest } from '../../src/host/capability.js';
import type { PreToolGate } from '../../src/host/gates.js';
import { Policy } from '../../src/host/policy.js';
import { ToolRegistry } from '../../src/host/registry.js';
import { defineTool, type ToolOutput } from '../../src/host/tool.js';
import { ToolHost } from '../../src/host/tool-host.js';
import { Workspace } from '../../src/host/workspace.js';
import { loadHooks, type LoadedHooks, type LoadHooksOptions } from '../../src/hooks/load-hooks.js';
import { repoRoot } from '../support/cli.js';

export const fixturesDir = path.join(repoRoot, 'test/fixtures/hooks');

/** A hook command that runs one fixture script with node. */
export function fixture(script: string, ...args: string[]): string[] {
  return [process.execPath, path.join(fixturesDir, script), ...args];
}

/** Hooks loaded from an inline (workflow-style) configuration, with a minimal host environment. */
export function inlineHooks(inline: unknown, overrides: Partial<LoadHooksOptions> = {}): Promise<LoadedHooks> {
  return loadHooks({ inline, cwd: fixturesDir, env: { PATH: process.env.PATH }, labels: {}, runId: 'run-test', ...overrides });
}

/** A gate that counts how often the host consults it. */
export function counted(gate: PreToolGate): PreToolGate & { calls: number } {
  const wrapper = {
    name: gate.name,
    calls: 0,
    evaluate(input: Parameters<PreToolGate['evaluate']>[0], signal: AbortSignal) {
      wrapper.calls += 1;
      return gate.evaluate(input, signal);
    },
  };
  return wrapper;
}

/** An approver that records each request and allows it once. */
export function recordingApprover(): Approver & { asked: number } {
  const approver = {
    asked: 0,
    async approve() {
      approver.asked += 1;
      return 'allow_once' as const;
    },
  };
  return approver;
}

const executions = new WeakMap<object, { executions: number }>();

/** How often a tool made by `requestingTool` really executed. */
export function executionsOf(tool: object): number {
  return executions.get(tool)?.executions ?? 0;
}

/**
 * A tool whose calls declare the given capability requests (built from the parsed args) and
 * count how often they really execute (`executionsOf`).
 */
export function requestingTool(name: string, requestsFor: (args: Record<string, unknown>) => CapabilityRequest[], output?: ToolOutput) {
  const counter = { executions: 0 };
  const tool = defineTool({
    name,
    description: 'declares capability requests for hook tests',
    executionPolicy: 'resource-aware',
    schema: z.looseObject({}),
    async prepare(args) {
      return {
        requests: requestsFor(args),
        resources: [],
        async execute() {
          counter.executions += 1;
          return output ?? { text: 'executed' };
        },
      };
    },
  });
  executions.set(tool, counter);
  return tool;
}

export async function hostWith(options: {
  root: string;
  tools: ReturnType<typeof requestingTool>[];
  policy: { allow?: string[]; ask?: string[]; deny?: string[] };
  gates: readonly PreToolGate[];
  approver?: Approver;
}): Promise<ToolHost> {
  return new ToolHost({
    workspace: await Workspace.create(options.root),
    policy: Policy.fromText(options.policy),
    tools: new ToolRegistry(options.tools),
    environment: { env: {}, secretNames: [], processEnv: { mode: 'inherit' } },
    gates: options.gates,
    ...(options.approver && { approver: options.approver }),
  });
}
