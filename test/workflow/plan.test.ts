import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatPlan } from '../../src/ui/render/plan-text.js';
import { openWorkflow } from '../../src/workflow/launch.js';
import { parseRunChoices } from '../../src/workflow/run-choices.js';
import { planWorkflow, type WorkflowPlan } from '../../src/workflow/plan.js';
import { makeTempDir } from '../support/cli.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await makeTempDir('rho-plan-')));
afterEach(() => cleanup());

async function plan(yaml: string, options: { maxParallel?: number; allow?: string[] } = {}): Promise<WorkflowPlan> {
  const file = path.join(dir, 'flow.yml');
  await writeFile(file, yaml);
  const opened = await openWorkflow(
    {
      file,
      cwd: dir,
      choices: parseRunChoices({ ...(options.maxParallel !== undefined && { maxParallel: options.maxParallel }), rules: { allow: options.allow ?? [] } }),
      ports: { hostEnv: {} },
    },
    'skip',
  );
  return planWorkflow(opened);
}

const waves = (planned: WorkflowPlan) => Object.fromEntries(planned.steps.map((step) => [step.id, step.wave]));
const waits = (planned: WorkflowPlan) => Object.fromEntries(planned.steps.map((step) => [step.id, step.waitsFor]));

describe('rho plan: the schedule', () => {
  it('groups independent steps, keeps conflicting ones in order and names the resource kind', async () => {
    await mkdir(path.join(dir, 'out'));
    const planned = await plan(
      `version: 1
name: files
max_parallel: 4
policy:
  allow: ["write(out/**)", "read(out/**)", "read(docs/**)"]
steps:
  - { id: first, tool: write_file, with: { path: out/a.txt, content: one, create_dirs: true } }
  - { id: other, tool: write_file, with: { path: out/b.txt, content: two, create_dirs: true } }
  - { id: second, tool: write_file, with: { path: out/a.txt, content: three, create_dirs: true } }
  - { id: listing, tool: list_files, with: { path: out } }
`,
    );
    expect(waves(planned)).toEqual({ first: 1, other: 1, second: 2, listing: 3 });
    expect(waits(planned)).toEqual({
      first: [],
      other: [],
      second: ['first (conflict on file path)'],
      listing: ['second (conflict on directory tree)'],
    });
    expect(planned.steps.map((step) => step.resources)).toEqual([
      'exclusive file path out/a.txt',
      'exclusive file path out/b.txt',
      'exclusive file path out/a.txt',
      'shared directory tree out/**',
    ]);
  });

  it('explains barriers, dependencies, slots and detached steps', async () => {
    const planned = await plan(
      `version: 1
name: mixed
max_parallel: 2
steps:
  - { id: a, tool: echo, with: { value: 1 } }
  - { id: b, tool: echo, with: { value: 2 } }
  - { id: c, tool: echo, with: { value: 3 } }
  - { id: alone, tool: http_request, with: { url: "http://127.0.0.1:9/never" } }
  - { id: d, needs: [c], tool: echo, with: { value: 4 } }
  - { id: tail, tool: process_output, async: true, with: { process_id: p1 } }
`,
    );
    expect(waves(planned)).toEqual({ a: 1, b: 1, c: 2, alone: 3, d: 4, tail: 4 });
    expect(waits(planned)).toEqual({
      a: [],
      b: [],
      c: ['a free slot (max_parallel)'],
      alone: ['c (this step runs alone: it starts after every earlier step)'],
      d: ['c (dependency)', 'alone (exclusive step: a barrier in model order)'],
      tail: ['alone (exclusive step: a barrier in model order)'],
    });
    const alone = planned.steps.find((step) => step.id === 'alone')!;
    expect(alone).toMatchObject({ resources: 'exclusive (runs alone)', preparation: 'at_run_time', requests: [] });
    expect(alone.note).toContain('asks for what it needs while it runs');
    expect(planned.steps.map((step) => step.detached)).toEqual([false, false, false, false, false, true]);

    const text = formatPlan(planned);
    expect(text).toContain('  wave 4: d, tail');
    expect(text).toContain('tail (process_output, detached) — wave 4');
    expect(text.slice(text.indexOf('alone (http_request) — wave 3'), text.indexOf('d (echo) — wave 4'))).toEqual([
      'alone (http_request) — wave 3',
      '  waits for: c (this step runs alone: it starts after every earlier step)',
      '  resources: exclusive (runs alone)',
      '  note: this tool cannot declare its requests in advance: it asks for what it needs while it runs',
      '',
    ]);
  });

  it('says a later step waits on an earlier one that is still waiting for its dependencies', async () => {
    const planned = await plan(
      `version: 1
name: chain
max_parallel: 4
steps:
  - { id: slow, tool: echo, with: { value: 1 } }
  - { id: needy, needs: [slow], tool: echo, with: { value: 2 } }
  - { id: free, tool: echo, with: { value: 3 } }
`,
    );
    expect(waves(planned)).toEqual({ slow: 1, needy: 2, free: 2 });
    expect(waits(planned).free).toEqual(['needy (an earlier step still waiting for its own dependencies; steps start in model order)']);
  });

  it('runs nothing: what the steps would write does not exist afterwards', async () => {
    const planned = await plan(
      `version: 1
name: quiet
steps:
  - { id: make, tool: write_file, with: { path: made/by-plan.txt, content: x, create_dirs: true } }
`,
      { allow: ['write(made/**)'] },
    );
    expect(planned.steps[0]!.requests).toEqual([
      { class: 'write', description: 'write made/by-plan.txt (new)', decision: 'allow', rule: 'write(made/**)', grant: 'write(made/by-plan.txt)' },
    ]);
    expect(await readdir(dir)).toEqual(['flow.yml']);
  });
});
