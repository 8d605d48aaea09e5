import { describe, expect, it } from 'vitest';
import { callDeclaration } from '../../src/cli/mcp-serve/call-resources.js';
import { CallSchedule } from '../../src/cli/mcp-serve/call-schedule.js';
import type { Declaration } from '../../src/host/schedule-types.js';
import { builtinRegistry } from '../../src/workflow/builtin-registry.js';
import { workflowSchema } from '../../src/workflow/schema.js';
import { WorkflowSource } from '../../src/workflow/source.js';

const root = '/work/project';
const registry = builtinRegistry();

function declarationOf(tasks: string, task: string | undefined = 'a', defaults = ''): Declaration {
  const text = `version: 1\nname: t\n${defaults}tasks:\n${tasks}`;
  const file = workflowSchema.parse(WorkflowSource.parse('rho.yml', text).source!.toData());
  return callDeclaration(file, task, registry, root, '/home/me');
}

/** What a declaration holds, as mode and place. */
function held(declaration: Declaration): string[] | 'exclusive' {
  return declaration === 'exclusive' ? declaration : declaration.map((access) => `${access.mode} ${access.resource.kind} ${'path' in access.resource ? access.resource.path : ''}`);
}

describe('what a served task call holds on the server’s schedule', () => {
  it('holds exactly the places its process steps say they write, from the step, the task or the file’s defaults', () => {
    expect(held(declarationOf('  a:\n    writes: [dist/**]\n    steps: [npm run build, { exec: tsc, writes: [types/index.d.ts] }]\n'))).toEqual([
      'exclusive tree /work/project/dist',
      'exclusive path /work/project/types/index.d.ts',
    ]);
    expect(held(declarationOf('  a: [make]\n', 'a', 'defaults: { writes: ["~/.cache/tool/**"] }\n'))).toEqual(['exclusive tree /home/me/.cache/tool']);
    expect(held(declarationOf('  a:\n    writes: []\n    steps: [npm run lint]\n'))).toEqual([]);
  });

  it('holds the workspace shared for a step that reads it, or a task that checks its sources', () => {
    expect(held(declarationOf('  a:\n    - { tool: read_file, with: { path: README.md } }\n    - { tool: echo, with: { value: hi } }\n'))).toEqual(['shared tree /work/project']);
    expect(held(declarationOf('  a:\n    sources: [src/**]\n    writes: [out/**]\n    steps: [make]\n'))).toEqual([
      'shared tree /work/project',
      'exclusive tree /work/project/out',
    ]);
  });

  it.each([
    ['a process step that does not say where it writes', '  a: [make]\n'],
    ['a tool that writes files', '  a:\n    - { tool: write_file, with: { path: x, content: y } }\n'],
    ['a background process', '  a:\n    writes: []\n    steps: [{ tool: process_start, with: { command: node } }]\n'],
    ['a step that runs another task', '  a:\n    - uses: b\n  b: [{ tool: echo, with: { value: hi } }]\n'],
    ['a task that needs another', '  a:\n    needs: b\n    steps: [{ tool: echo, with: { value: hi } }]\n  b: [{ tool: echo, with: { value: hi } }]\n'],
    ['a tool rho does not know', '  a:\n    - { tool: notes.add, with: { text: x } }\n'],
  ])('runs alone when it cannot say what it writes: %s', (_, tasks) => {
    expect(declarationOf(tasks)).toBe('exclusive');
  });

  it('runs calls that write apart side by side, and a call that writes inside another’s tree after it', async () => {
    const writer = (tree: string) => declarationOf(`  a:\n    writes: [${tree}/**]\n    steps: [make]\n`);
    const schedule = new CallSchedule();
    const started: string[] = [];
    const finish = new Map<string, () => void>();
    const call = (name: string, tree: string) =>
      schedule.run(
        writer(tree),
        new AbortController().signal,
        () => {
          started.push(name);
          return new Promise<string>((resolve) => finish.set(name, () => resolve(name)));
        },
        () => 'cancelled',
      );
    const calls = [call('a', 'out/a'), call('b', 'out/b'), call('deep', 'out/a/deep')];
    await turns();
    expect(started).toEqual(['a', 'b']);
    finish.get('b')!();
    await turns();
    expect(started).toEqual(['a', 'b']);
    finish.get('a')!();
    await turns();
    expect(started).toEqual(['a', 'b', 'deep']);
    finish.get('deep')!();
    expect(await Promise.all(calls)).toEqual(['a', 'b', 'deep']);
  });

  it('leaves a call cancelled while it waits without running it, and lets the next one go', async () => {
    const schedule = new CallSchedule();
    let release!: () => void;
    const first = schedule.run(
      'exclusive',
      new AbortController().signal,
      () => new Promise<string>((resolve) => (release = () => resolve('first'))),
      () => 'cancelled',
    );
    const cancel = new AbortController();
    const waiting = schedule.run(
      'exclusive',
      cancel.signal,
      async () => 'ran',
      () => 'cancelled',
    );
    const third = schedule.run(
      'exclusive',
      new AbortController().signal,
      async () => 'third',
      () => 'cancelled',
    );
    cancel.abort();
    expect(await waiting).toBe('cancelled');
    release();
    expect(await Promise.all([first, third])).toEqual(['first', 'third']);
  });
});

/** Lets every promise that can settle do so. */
async function turns(): Promise<void> {
  for (let turn = 0; turn < 20; turn += 1) await new Promise((resolve) => setImmediate(resolve));
}
