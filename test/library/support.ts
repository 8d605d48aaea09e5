import { mkdtemp, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
// Only the library's public entry point, as an embedder imports it.
import { createToolHost, defineTool, z, type ToolHost, type ToolHostSetup } from '../../src/index.js';

/** A fresh workspace directory per test, removed afterwards, and the hosts made in it disposed. */
export function workspacePerTest(): { readonly dir: string; host(setup: Omit<ToolHostSetup, 'workspace'>): Promise<ToolHost> } {
  let dir = '';
  const hosts: ToolHost[] = [];
  beforeEach(async () => {
    dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'rho-library-')));
  });
  afterEach(async () => {
    for (const host of hosts.splice(0)) await host.dispose();
    await rm(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      return dir;
    },
    async host(setup) {
      const host = await createToolHost({ workspace: dir, ...setup });
      hosts.push(host);
      return host;
    },
  };
}

/** A tool that returns what it is given to return, as an exclusive (`run`) tool. */
export function returning(name: string, value: () => unknown) {
  return defineTool({ name, description: `returns a value for tests`, schema: z.strictObject({}), run: () => value() as never });
}

/** Lets pending promise callbacks and immediates run. */
export async function turns(count = 20): Promise<void> {
  for (let turn = 0; turn < count; turn += 1) await new Promise((resolve) => setImmediate(resolve));
}
