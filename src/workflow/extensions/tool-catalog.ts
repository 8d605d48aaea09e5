import { z } from 'zod';
import type { CapabilityClass } from '../../host/capability.js';
import type { ExecutionMode, ExecutionPolicy, Tool, ToolOrigin } from '../../host/tool.js';
import { builtinRegistry } from '../builtin-registry.js';
import { openWorkflow, type OpenOptions } from '../launch.js';
import { formatProblem } from '../problems.js';
import { startDeclaredServers } from './start-servers.js';

/** One line of `rho tools`: what a tool declares. `--json` adds its JSON Schema. */
export interface ToolListing {
  name: string;
  origin: ToolOrigin;
  /** Declared capability classes: inspectable metadata, not a sandbox. */
  classes: readonly CapabilityClass[];
  execution_policy: ExecutionPolicy;
  mode: ExecutionMode;
  timeout_ms: number;
  untrusted_content: boolean;
  description: string;
  has_selftest: boolean;
  schema?: unknown;
  /** JSON Schema of the result's `data`, for tools that declare it. */
  data_schema?: unknown;
}

export function toolListing(tool: Tool, withSchema: boolean): ToolListing {
  return {
    name: tool.name,
    origin: tool.origin,
    classes: tool.classes,
    execution_policy: tool.executionPolicy,
    mode: tool.mode,
    timeout_ms: tool.timeoutMs,
    untrusted_content: tool.untrustedContent ?? false,
    description: tool.description,
    has_selftest: typeof tool.selftest === 'function',
    ...(withSchema && { schema: z.toJSONSchema(tool.schema, { io: 'input', unrepresentable: 'any' }) }),
    ...(withSchema && tool.data && { data_schema: z.toJSONSchema(tool.data, { io: 'output', unrepresentable: 'any' }) }),
  };
}

/** The tools `rho tools` lists, and how to end what listing them started. */
export interface ToolCatalog {
  tools: readonly Tool[];
  /** Stops the workflow's MCP servers; returns notices about what had to be stopped. */
  close(): Promise<readonly string[]>;
}

/**
 * The built-in tools, or with a workflow file, everything a run of it would have: its module
 * tools and the tools of its MCP servers. Listing those starts the servers, so each start goes
 * through the workflow's policy (and the flags' rules) like in a run.
 */
export async function openToolCatalog(options: Omit<OpenOptions, 'file'> & { file: string | undefined; signal: AbortSignal }): Promise<ToolCatalog> {
  if (options.file === undefined) return { tools: builtinRegistry().list(), close: async () => [] };
  const opened = await openWorkflow({ ...options, file: options.file }, 'import');
  const close = async () => {
    const notices = await opened.host.dispose();
    await opened.hooks?.finish();
    return notices;
  };
  try {
    const outcomes = await startDeclaredServers(opened.host, opened.servers, {
      source: opened.workflow.source,
      inputs: opened.inputs,
      secrets: opened.secrets,
      signal: options.signal,
    });
    for (const warning of outcomes.flatMap((outcome) => outcome.warnings)) options.ports.warn?.(formatProblem(warning));
    const failed = outcomes.find((outcome) => outcome.error);
    if (failed?.error) throw failed.error;
  } catch (error) {
    await close();
    throw error;
  }
  return { tools: opened.host.tools.list(), close };
}
