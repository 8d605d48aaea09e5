import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ProcessRequest } from '../../host/capability.js';
import { ToolError } from '../../host/errors.js';
import type { HostEnvironment } from '../../host/tool.js';
import { composeEnvironment, validateStepEnvironment } from '../process/environment.js';
import { resolveExecutable } from '../process/executable.js';
import { processRequest } from '../process/request.js';
import { maxMessageBytes, type ServerLaunch } from './server-process.js';

/** An `mcp:` entry of a workflow's `tools:`, with `env` values already evaluated. */
export interface McpServerDeclaration {
  /** Namespace of the server's tools (`<name>.<tool>`). */
  name: string;
  /** The program and its first arguments. */
  command: readonly string[];
  args?: readonly string[];
  env?: Readonly<Record<string, string>>;
  /** Working directory, relative to `baseDirectory`. */
  cwd?: string;
}

export interface ServerLaunchPlan {
  /** The `process` capability request that must be granted before anything is spawned. */
  request: ProcessRequest;
  launch: ServerLaunch;
}

async function resolveServerDirectory(directory: string): Promise<string> {
  try {
    const canonical = await realpath(directory);
    if ((await stat(canonical)).isDirectory()) return canonical;
  } catch {
    // Reported below with the directory that was asked for.
  }
  throw new ToolError('not_found', `cwd ${directory} is not an existing directory`);
}

/**
 * Resolves where and what a server would run, exactly as a process step would be prepared: the
 * program looked up once on the host's PATH (or named by path), the environment composed from
 * the workflow's process_env mode (credentials scrubbed) plus the entry's own `env`. Nothing runs.
 */
export async function planServerLaunch(declaration: McpServerDeclaration, baseDirectory: string, host: HostEnvironment): Promise<ServerLaunchPlan> {
  const [command, ...commandArgs] = declaration.command;
  if (command === undefined) throw new ToolError('invalid_arguments', 'command is empty');
  const cwd = await resolveServerDirectory(path.resolve(baseDirectory, declaration.cwd ?? '.'));
  const stepEnv = declaration.env ?? {};
  validateStepEnvironment(stepEnv, host.secretNames);
  const executable = await resolveExecutable(command, { pathVariable: host.env.PATH, cwd });
  const argv = [...commandArgs, ...(declaration.args ?? [])];
  const request = processRequest({
    cwd,
    executable,
    argv,
    envMode: host.processEnv,
    envNames: Object.keys(stepEnv).sort(),
    outputLimitBytes: maxMessageBytes,
    wallLimitMs: 0,
  });
  const env = composeEnvironment({ hostEnv: host.env, mode: host.processEnv, stepEnv });
  return { request, launch: { file: executable.resolved, args: argv, cwd, env } };
}
