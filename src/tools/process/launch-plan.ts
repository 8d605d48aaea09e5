import type { EnvMode, ProcessRequest, ShellRequest } from '../../host/capability.js';
import type { CallConfinement } from '../../host/confinement/index.js';
import { ToolError } from '../../host/errors.js';
import { contentDigest } from '../../host/fingerprint.js';
import type { PrepareContext } from '../../host/tool.js';
import type { ResolvedPath, Workspace } from '../../host/workspace.js';
import { composeEnvironment, validateStepEnvironment } from './environment.js';
import { resolveExecutable, type ExecutableSearch } from './executable.js';
import type { CommandOptions, LaunchOptions } from './launch-options.js';
import { preloadExeca, type ProcessLaunch } from './process-group.js';
import { processRequest } from './request.js';

/** What preparation learned about where and how a process runs, shared by every process tool. */
export interface LaunchPlan {
  cwd: ResolvedPath;
  env: Record<string, string>;
  envMode: EnvMode;
  /** The variables the step sets itself (workflow `env:` and the step's `env`), keys sorted. */
  stepEnv: Record<string, string>;
  outputLimitBytes: number;
  /** Digest of the stdin text the request carries (absent when stdin is closed). */
  stdinDigest?: string;
  /** How the process will be confined (decided when the call is prepared, so a plan shows what a run does). */
  confinement: CallConfinement | undefined;
}

/** The working directory of a process: an existing directory inside the primary workspace. */
export async function resolveWorkingDirectory(requested: string, ctx: PrepareContext): Promise<ResolvedPath> {
  const cwd = await ctx.workspace.resolveForRead(requested);
  if (cwd.entry !== 'directory') throw new ToolError('invalid_arguments', `cwd ${JSON.stringify(requested)} is not a directory`);
  if (cwd.scope !== 'workspace') {
    throw new ToolError('path_refused', `cwd ${JSON.stringify(requested)} is outside the workspace; processes run inside it`, {
      details: { path: requested },
    });
  }
  return cwd;
}

/** A step's own variables with their names sorted, so equal environments make equal requests. */
export function sortedEnvironment(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const sorted: Record<string, string> = {};
  for (const name of Object.keys(env).sort()) {
    const value = env[name];
    if (value !== undefined) sorted[name] = value;
  }
  return sorted;
}

/** Resolves the cwd and composes the one environment the child will get. */
export async function planLaunch(options: LaunchOptions, ctx: PrepareContext): Promise<LaunchPlan> {
  preloadExeca();
  const cwd = await resolveWorkingDirectory(options.cwd ?? '.', ctx);
  const stepEnv = { ...ctx.host.processVariables, ...options.env };
  validateStepEnvironment(stepEnv, ctx.host.secretNames);
  const envMode = ctx.host.processEnv;
  return {
    cwd,
    env: composeEnvironment({ hostEnv: ctx.host.env, mode: envMode, stepEnv }),
    envMode,
    stepEnv: sortedEnvironment(stepEnv),
    outputLimitBytes: options.max_output_bytes,
    ...(options.stdin !== undefined && { stdinDigest: contentDigest(options.stdin) }),
    confinement: ctx.confinement,
  };
}

/**
 * Where a process tool looks for a program: the host's PATH, with the places some step may write
 * (the confinement plan's: the workspace, granted roots a write rule reaches, caches) as where a
 * program may have been planted. A granted root that nothing may write (a toolchain's directory)
 * is not one of them, so `process(python3)` still matches a python3 found there. Without a plan,
 * the workspace and every granted root.
 */
export function executableSearch(ctx: PrepareContext, cwd: string): ExecutableSearch {
  const writableRoots = ctx.confinement?.plan.scope.places ?? [ctx.workspace.root, ...ctx.workspace.grantedRoots];
  return { pathVariable: ctx.host.env.PATH, cwd, writableRoots };
}

/** The wall limit of a call that runs to completion: its own `timeout`, never beyond the host's. */
export function callWallLimitMs(options: LaunchOptions, ctx: PrepareContext): number {
  return options.timeout === undefined ? ctx.timeoutMs : Math.min(Math.round(options.timeout * 1000), ctx.timeoutMs);
}

/** Prepares a direct (argv) process: where it runs, its environment, and the request to authorize. */
export async function planDirectProcess(options: CommandOptions & LaunchOptions, ctx: PrepareContext, wallLimitMs: number): Promise<{ plan: LaunchPlan; request: ProcessRequest }> {
  const plan = await planLaunch(options, ctx);
  const executable = await resolveExecutable(options.command, executableSearch(ctx, plan.cwd.canonical));
  const request = processRequest({
    cwd: plan.cwd.canonical,
    executable,
    argv: options.args,
    envMode: plan.envMode,
    env: plan.stepEnv,
    outputLimitBytes: plan.outputLimitBytes,
    wallLimitMs,
    ...(plan.stdinDigest !== undefined && { stdinDigest: plan.stdinDigest }),
  });
  return { plan, request };
}

/**
 * What to start, taken from the authorized request itself (so what runs is what was approved),
 * after checking that the cwd did not change on disk since preparation.
 */
export async function launchFromRequest(request: ProcessRequest | ShellRequest, plan: LaunchPlan, stdin: string | undefined, workspace: Workspace): Promise<ProcessLaunch> {
  const cwd = await workspace.revalidate(plan.cwd);
  const args = request.class === 'shell' ? [...request.argv, request.script] : request.argv;
  return { file: request.executable.resolved, args, cwd: cwd.canonical, env: plan.env, stdin, confinement: plan.confinement };
}
