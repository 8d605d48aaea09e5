import { z } from 'zod';
import type { EnvMode } from '../../host/capability.js';
import { ToolError } from '../../host/errors.js';
import type { PrepareContext } from '../../host/tool.js';
import type { ResolvedPath } from '../../host/workspace.js';
import { composeEnvironment, validateStepEnvironment } from './environment.js';
import { defaultOutputLimitBytes, maxOutputLimitBytes } from './output-capture.js';

const envNamePattern = /^[A-Za-z_][A-Za-z0-9_]*$/;
const withoutNul = (text: string) => !text.includes('\0');
/** Longest single argument or environment value. */
const maxTextBytes = 128 * 1024;
/** Longest wall limit a call may ask for, in seconds (a day). */
export const maxTimeoutSeconds = 86_400;

export const argumentText = z.string().max(maxTextBytes).refine(withoutNul, 'may not contain a NUL byte');

/** Options every process-starting tool accepts, beside what it runs. */
export const launchOptionsShape = {
  cwd: z.string().min(1).max(4096).optional().describe('Working directory, a directory inside the workspace (default: the workspace root)'),
  env: z
    .record(z.string().regex(envNamePattern, 'an environment variable name'), argumentText)
    .optional()
    .describe('Extra environment variables; PATH, LD_* and DYLD_* need an unrestricted process rule, credentials must come from secrets:'),
  stdin: z.string().max(1024 * 1024).optional().describe('Text written to stdin (stdin is closed when absent)'),
  timeout: z.number().positive().max(maxTimeoutSeconds).optional().describe('Wall limit in seconds (never longer than the step timeout)'),
  max_output_bytes: z
    .number()
    .int()
    .positive()
    .max(maxOutputLimitBytes)
    .default(defaultOutputLimitBytes)
    .describe('Bytes of stdout and of stderr kept (each); the rest is drained and dropped, and truncated is set'),
};

/** For tools that run a process to completion. */
export const okExitCodesSchema = z
  .array(z.number().int().min(0).max(255))
  .min(1)
  .max(256)
  .default([0])
  .describe('Exit codes that count as success (default [0])');

const launchOptions = z.strictObject(launchOptionsShape);
export type LaunchOptions = z.infer<typeof launchOptions>;

/** What preparation learned about where and how a process runs, shared by every process tool. */
export interface LaunchPlan {
  cwd: ResolvedPath;
  env: Record<string, string>;
  envMode: EnvMode;
  envNames: string[];
  outputLimitBytes: number;
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

/** Resolves the cwd and composes the one environment the child will get. */
export async function planLaunch(options: LaunchOptions, ctx: PrepareContext): Promise<LaunchPlan> {
  const cwd = await resolveWorkingDirectory(options.cwd ?? '.', ctx);
  const stepEnv = options.env ?? {};
  validateStepEnvironment(stepEnv, ctx.host.secretNames);
  const envMode = ctx.host.processEnv;
  return {
    cwd,
    env: composeEnvironment({ hostEnv: ctx.host.env, mode: envMode, stepEnv }),
    envMode,
    envNames: Object.keys(stepEnv).sort(),
    outputLimitBytes: options.max_output_bytes,
  };
}

/** The wall limit of a call that runs to completion: its own `timeout`, never beyond the host's. */
export function callWallLimitMs(options: LaunchOptions, ctx: PrepareContext): number {
  return options.timeout === undefined ? ctx.timeoutMs : Math.min(Math.round(options.timeout * 1000), ctx.timeoutMs);
}
