import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { z } from 'zod';
import type { ApprovalAnswer, ApprovalRequest, Approver } from '../../src/host/approval.js';
import { ToolError } from '../../src/host/errors.js';
import { Policy } from '../../src/host/policy.js';
import { ToolRegistry } from '../../src/host/registry.js';
import { exclusive, opaqueKey, shared } from '../../src/host/resources.js';
import { defineTool, type Tool } from '../../src/host/tool.js';
import { ToolHost } from '../../src/host/tool-host.js';
import { Workspace } from '../../src/host/workspace.js';
import { compileWorkflow } from '../../src/workflow/compile.js';
import type { RunEvent } from '../../src/host/events.js';
import { formatProblem } from '../../src/workflow/problems.js';
import { runWorkflow, type RunSummary } from '../../src/workflow/runner.js';
import { WorkflowSource } from '../../src/workflow/source.js';

/**
 * In-process runner tests: fake tools whose executions the test starts and ends by hand, so
 * the order of starts and finishes is asserted without clocks or sleeps.
 */

/** Each fake execution: it logs `start NAME`, waits until the test calls `finish`/`fail` (or is stopped), then logs how it ended. */
export class Stage {
  readonly log: string[] = [];
  private readonly open = new Map<string, { resolve: () => void; reject: (error: Error) => void }>();
  private mostAtOnce = 0;

  /** The largest number of executions that were running at the same time. */
  get peak(): number {
    return this.mostAtOnce;
  }

  running(): string[] {
    return [...this.open.keys()];
  }

  async perform(name: string, signal: AbortSignal, auto: boolean): Promise<void> {
    this.log.push(`start ${name}`);
    if (auto) {
      this.log.push(`finish ${name}`);
      return;
    }
    try {
      await new Promise<void>((resolve, reject) => {
        this.open.set(name, { resolve, reject });
        this.mostAtOnce = Math.max(this.mostAtOnce, this.open.size);
        signal.addEventListener('abort', () => reject(new ToolError('cancelled', `${name} was stopped`)), { once: true });
      });
      this.log.push(`finish ${name}`);
    } catch (error) {
      this.log.push(signal.aborted ? `stopped ${name}` : `failed ${name}`);
      throw error;
    } finally {
      this.open.delete(name);
    }
  }

  finish(name: string): void {
    this.entry(name).resolve();
  }

  fail(name: string): void {
    this.entry(name).reject(new ToolError('execution_failed', `${name} failed on purpose`));
  }

  private entry(name: string) {
    const entry = this.open.get(name);
    if (!entry) throw new Error(`${name} is not running (running: ${this.running().join(', ') || 'nothing'}; log: ${this.log.join(', ')})`);
    return entry;
  }
}

const keys = z.array(z.string().min(1)).optional();
const stepArgs = z.strictObject({ name: z.string().min(1), shared: keys, exclusive: keys, auto: z.boolean().optional() });
type StepArgs = z.infer<typeof stepArgs>;

/** `work` and `watch` declare shared/exclusive access to the opaque keys `test:<key>`. */
function declaredAccesses(args: StepArgs) {
  return [...(args.shared ?? []).map((key) => shared(opaqueKey('test', key))), ...(args.exclusive ?? []).map((key) => exclusive(opaqueKey('test', key)))];
}

export function fakeTools(stage: Stage): Tool[] {
  const work = defineTool({
    name: 'work',
    description: 'A resource-aware step the test finishes by hand',
    executionPolicy: 'resource-aware',
    schema: stepArgs,
    async prepare(args) {
      return { requests: [], resources: declaredAccesses(args), execute: async (ctx) => (await stage.perform(args.name, ctx.signal, args.auto ?? false), { text: args.name }) };
    },
  });
  const watch = defineTool({
    name: 'watch',
    description: 'An async-mode step (it may run detached) the test finishes by hand',
    executionPolicy: 'resource-aware',
    mode: 'async',
    schema: stepArgs,
    async prepare(args) {
      return { requests: [], resources: declaredAccesses(args), execute: async (ctx) => (await stage.perform(args.name, ctx.signal, args.auto ?? false), { text: args.name }) };
    },
  });
  const solo = defineTool({
    name: 'solo',
    description: 'A tool that cannot declare its resources: it runs alone, a barrier in model order',
    schema: z.strictObject({ name: z.string().min(1), auto: z.boolean().optional() }),
    async run(args, ctx) {
      await stage.perform(args.name, ctx.signal, args.auto ?? false);
      return { text: args.name };
    },
  });
  const gated = defineTool({
    name: 'gated',
    description: 'A step whose one capability request the policy sends to the approver',
    executionPolicy: 'resource-aware',
    schema: z.strictObject({ name: z.string().min(1), auto: z.boolean().optional() }),
    async prepare(args) {
      return {
        requests: [{ class: 'network_tool', tool: 'gated' }],
        resources: [],
        execute: async (ctx) => (await stage.perform(args.name, ctx.signal, args.auto ?? false), { text: args.name }),
      };
    },
  });
  return [work, watch, solo, gated];
}

/** An approver that holds every request until the test answers it. */
export class HeldApprover implements Approver {
  readonly waiting: { request: ApprovalRequest; answer: (answer: ApprovalAnswer) => void }[] = [];

  approve(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ request, answer: resolve });
      signal.addEventListener('abort', () => reject(new ToolError('cancelled', 'the approval was cancelled')), { once: true });
    });
  }

  answer(stepId: string, answer: ApprovalAnswer): void {
    const entry = this.waiting.find((waiting) => waiting.request.stepId === stepId);
    if (!entry) throw new Error(`no approval is waiting for ${stepId}`);
    entry.answer(answer);
  }
}

/** One temporary workspace for a test file, removed after it. */
export function useWorkspace(): () => Workspace {
  let dir = '';
  let workspace: Workspace | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'rho-runner-'));
    workspace = await Workspace.create(dir);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  return () => workspace!;
}

export interface StartedRun {
  stage: Stage;
  events: RunEvent[];
  done: Promise<RunSummary>;
  /** Step ids in the order their step_finished events were reported. */
  reported(): string[];
  /** Waits (a bounded number of event-loop turns, no timers) until `condition` holds. */
  until(condition: () => boolean, what: string): Promise<void>;
}

export interface RunSetup {
  workspace: Workspace;
  maxParallel?: number;
  approver?: Approver;
  ask?: readonly string[];
  signal?: AbortSignal;
}

export function compileForTest(yaml: string, registry: ToolRegistry) {
  const parsed = WorkflowSource.parse('w.yml', yaml);
  if (!parsed.source) throw new Error(parsed.problems.map(formatProblem).join('\n'));
  return compileWorkflow(parsed.source, registry);
}

/** Starts a run of `steps` (YAML under `steps:`) with the fake tools; the test drives it. */
export function startRun(steps: string, setup: RunSetup): StartedRun {
  const stage = new Stage();
  const registry = new ToolRegistry(fakeTools(stage));
  const { workflow, problems } = compileForTest(`version: 1\nname: test\nsteps:\n${steps}`, registry);
  if (!workflow) throw new Error(problems.map(formatProblem).join('\n'));
  const host = new ToolHost({
    workspace: setup.workspace,
    policy: Policy.fromText({ allow: ['network_tool'], ask: setup.ask ?? [] }),
    tools: registry,
    environment: { env: {}, secretNames: [], processEnv: { mode: 'inherit' } },
    ...(setup.approver && { approver: setup.approver }),
    maxParallel: setup.maxParallel ?? 1,
  });
  const events: RunEvent[] = [];
  host.subscribe((event) => events.push(event));
  const done = runWorkflow({
    host,
    workflow,
    inputs: {},
    secrets: {},
    env: {},
    signal: setup.signal ?? new AbortController().signal,
  }).then(async (summary) => {
    // Listeners get events on a later turn: the run's last ones have reached `events` once this settles.
    await host.flushEvents();
    return summary;
  });
  return {
    stage,
    events,
    done,
    reported: () => events.flatMap((event) => (event.type === 'step_finished' ? [event.stepId] : [])),
    async until(condition, what) {
      for (let turn = 0; turn < 500; turn += 1) {
        if (condition()) return;
        await new Promise((resolve) => setImmediate(resolve));
      }
      throw new Error(`timed out waiting for ${what}; log: ${stage.log.join(', ')}; running: ${stage.running().join(', ')}`);
    },
  };
}

/** The step_finished event of one step. */
export function finishedEvent(events: readonly RunEvent[], stepId: string): Extract<RunEvent, { type: 'step_finished' }> {
  const event = events.find((candidate): candidate is Extract<RunEvent, { type: 'step_finished' }> => candidate.type === 'step_finished' && candidate.stepId === stepId);
  if (!event) throw new Error(`no step_finished event for ${stepId}`);
  return event;
}
