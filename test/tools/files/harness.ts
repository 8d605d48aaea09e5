import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Approver } from '../../../src/host/approval.js';
import { Policy } from '../../../src/host/policy.js';
import { ToolRegistry } from '../../../src/host/registry.js';
import { ToolHost } from '../../../src/host/tool-host.js';
import type { ToolResult } from '../../../src/host/tool.js';
import { Workspace } from '../../../src/host/workspace.js';
import { editFileTool } from '../../../src/tools/edit-file.js';
import { listFilesTool } from '../../../src/tools/list-files.js';
import { readFileTool } from '../../../src/tools/read-file.js';
import { searchFilesTool } from '../../../src/tools/search-files.js';
import { writeFileTool } from '../../../src/tools/write-file.js';

export const fileTools = () => new ToolRegistry([readFileTool, writeFileTool, editFileTool, listFilesTool, searchFilesTool]);

export interface PolicyText {
  allow?: string[];
  ask?: string[];
  deny?: string[];
}

/**
 * A temp directory holding a workspace (`ws`), a granted root (`granted`) and a directory no
 * policy grants (`outside`), plus a ToolHost factory over the five file tools.
 */
export interface FileBox {
  base: string;
  ws: string;
  granted: string;
  outside: string;
  workspace: Workspace;
  host(policy: PolicyText, options?: { approver?: Approver; workspace?: Workspace }): ToolHost;
  cleanup(): Promise<void>;
}

export async function makeFileBox(): Promise<FileBox> {
  const base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'rho-files-')));
  const [ws, granted, outside] = ['ws', 'granted', 'outside'].map((name) => path.join(base, name)) as [string, string, string];
  await Promise.all([mkdir(ws), mkdir(granted), mkdir(outside)]);
  const workspace = await Workspace.create(ws, { grantedRoots: [granted] });
  return {
    base,
    ws,
    granted,
    outside,
    workspace,
    host: (policy, options = {}) =>
      new ToolHost({
        workspace: options.workspace ?? workspace,
        policy: Policy.fromText(policy),
        tools: fileTools(),
        environment: { env: {}, secretNames: [], processEnv: { mode: 'empty' } },
        ...(options.approver && { approver: options.approver }),
      }),
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}

let callCount = 0;
export function invoke(host: ToolHost, tool: string, args: unknown): Promise<ToolResult> {
  callCount += 1;
  return host.invoke({ id: `call-${callCount}`, tool, args });
}

/** Writes files (and parents) from a map of relative path → content. */
export async function writeTree(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [relative, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, relative)), { recursive: true });
    await writeFile(path.join(root, relative), content);
  }
}

export async function link(target: string, at: string): Promise<void> {
  await symlink(target, at);
}
