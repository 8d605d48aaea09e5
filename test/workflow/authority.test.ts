import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { authorityChanges, runAuthority } from '../../src/workflow/authority.js';
import { builtinRegistry } from '../../src/workflow/builtin-registry.js';
import { loadWorkflowFile } from '../../src/workflow/load.js';
import { parseRunChoices } from '../../src/workflow/run-choices.js';
import { temporaryDirectories, writeFiles } from '../support/cli.js';

const directories = temporaryDirectories();
afterAll(() => directories.removeAll());

const flow = (policy: string, extra = '') => `version: 1
name: authority
policy:
${policy}
${extra}steps:
  - { id: say, tool: echo, with: { value: hi } }
`;

/** The authority of `text` as flow.yml in `dir`, with these flags. */
async function authorityOf(dir: string, text: string, flags: Parameters<typeof parseRunChoices>[0] = {}) {
  await writeFile(path.join(dir, 'flow.yml'), text);
  const choices = parseRunChoices(flags);
  const { workflow } = await loadWorkflowFile(path.join(dir, 'flow.yml'), builtinRegistry(), 'skip', { workspace: { cwd: dir } });
  return runAuthority(workflow, choices, dir, undefined);
}

describe('a run’s authority', () => {
  it('names each fact that differs: rules added and removed, the sandbox, the process environment, secrets, hooks and tools', async () => {
    const dir = await directories.make();
    const before = await authorityOf(dir, flow('  allow: ["shell", "write(out/**)"]'));
    expect(authorityChanges(before, await authorityOf(dir, flow('  allow: ["shell", "write(out/**)"]')))).toEqual([]);
    const after = await authorityOf(dir, flow('  sandbox: off\n  allow: ["shell", "network"]\n  process_env: inherit', 'secrets: [TOKEN]\nhost_env: [LANG]\n'));
    expect(authorityChanges(before, after)).toEqual(['policy.allow: + "network", - "write(out/**)"', 'policy.sandbox: "auto" → "off"', 'secrets: + "TOKEN"', 'host_env: + "LANG"']);
    // The flags are part of it: --sandbox off is the same widening.
    expect(authorityChanges(before, await authorityOf(dir, flow('  allow: ["shell", "write(out/**)"]'), { sandbox: 'off' }))).toEqual(['policy.sandbox: "auto" → "off"']);
  });

  it('covers the content of tool modules, which run in rho’s own process', async () => {
    const dir = await directories.make();
    await writeFiles(dir, { 'tools.mjs': 'export const tools = [];\n' });
    const text = flow('  allow: ["shell"]', 'tools:\n  - module: ./tools.mjs\n');
    const before = await authorityOf(dir, text);
    await writeFiles(dir, { 'tools.mjs': 'export const tools = []; // and more\n' });
    expect(authorityChanges(before, await authorityOf(dir, text))).toEqual(['tool module ./tools.mjs: changed']);
  });
});
