import path from 'node:path';
import type { z } from 'zod';
import { splitCommandLine } from './command-line.js';

/**
 * The short step forms, turned into the tool steps they stand for while the file is parsed:
 * `- cargo build` and `- exec: cargo build` are `exec` with the line split into its program and
 * arguments, `- shell: make > log` is `shell` with that script. Their `env:`, `cwd:` and
 * `ok_exit_codes:` are the tool's arguments. A short step without an `id:` is named after its
 * program, and a tool: or uses: step without one after its tool or task (see `withDerivedIds`).
 */

/** The step keys that are the tool's own arguments in a short step. */
export const shortStepArguments = ['env', 'cwd', 'ok_exit_codes'] as const;

/** Where a short step's command line is, relative to the step: the step itself when it is a bare string. */
export type CommandAt = [] | ['exec'] | ['shell'];

interface ShortKeys {
  id?: string | undefined;
  tool?: string | undefined;
  uses?: string | undefined;
  with?: Record<string, unknown> | undefined;
  exec?: string | undefined;
  shell?: string | undefined;
  env?: Record<string, unknown> | undefined;
  cwd?: string | undefined;
  ok_exit_codes?: number[] | undefined;
}

/** A step as compiled from the file: with a tool (or uses:), and its command line's place when it was written short. */
export type ToolStep<Step extends ShortKeys> = Omit<Step, 'exec' | 'shell' | (typeof shortStepArguments)[number]> & {
  commandAt?: CommandAt;
  /** The id a short step without one is given, before it is made unique in its task. */
  derivedId?: string;
};

export function toToolStep<Step extends ShortKeys>(entry: string | Step, context: z.core.$RefinementCtx): ToolStep<Step> {
  const step = (typeof entry === 'string' ? { exec: entry } : entry) as Step;
  const { exec, shell, env, cwd, ok_exit_codes: okExitCodes, ...rest } = step;
  // Where the problem is: a character of the command line (offset), or a key that should not be there.
  const issue = (path: PropertyKey[], message: string, offset?: number) =>
    context.addIssue({ code: 'custom', message, input: entry, path, params: offset !== undefined ? { offset } : { key: true } });
  const key = exec !== undefined ? 'exec' : shell !== undefined ? 'shell' : undefined;
  if (key === undefined) {
    const stray = shortStepArguments.find((name) => step[name] !== undefined);
    if (stray) issue([stray], `${stray}: belongs to an exec: or shell: step; in a tool: step it goes under with:`);
    const derivedId = step.uses !== undefined ? usesId(step.uses) : step.tool !== undefined ? nameId(step.tool) : undefined;
    return { ...rest, ...(derivedId !== undefined && { derivedId }) };
  }
  if (exec !== undefined && shell !== undefined) issue(['shell'], 'a step runs exec: or shell:, not both');
  const clash = (['tool', 'uses', 'with'] as const).filter((name) => step[name] !== undefined);
  if (clash.length > 0) {
    issue(
      [clash[0]!],
      `${key}: is a step of its own (the ${key} tool with that ${key === 'exec' ? 'command line' : 'script'}); drop ${clash.map((name) => `${name}:`).join(', ')} or write the step in full with tool: and with:`,
    );
  }
  const commandAt: CommandAt = typeof entry === 'string' ? [] : [key];
  const options = { ...(env !== undefined && { env }), ...(cwd !== undefined && { cwd }), ...(okExitCodes !== undefined && { ok_exit_codes: okExitCodes }) };
  if (key === 'shell') return { ...rest, tool: 'shell', with: { script: shell, ...options }, commandAt, derivedId: 'shell' };
  const split = splitCommandLine(exec!);
  if ('problem' in split) {
    issue(commandAt, split.problem.message, split.problem.offset);
    return rest;
  }
  const [command, ...args] = split.words as [string, ...string[]];
  return { ...rest, tool: 'exec', with: { command, ...(args.length > 0 && { args }), ...options }, commandAt, derivedId: programId(command) };
}

/** A step id from a program: `./bin/forbid` → `forbid`, `python3` → `python3`; `exec` when it is an expression. */
function programId(command: string): string {
  if (command.includes('${{')) return 'exec';
  return nameId(command.split('/').filter(Boolean).at(-1) ?? '') ?? 'exec';
}

/** A `uses:` step's id: the task it runs (`build`, `./ci.yml#unit` → `unit`), else the file's name (`./ci/test.yml` → `test`). */
export function usesId(uses: string): string | undefined {
  const [file, task] = uses.split('#');
  return nameId(task ?? path.basename(file!, path.extname(file!)));
}

/** `name` as a step id (lower case, other characters as `-`), if anything is left of it. */
function nameId(name: string): string | undefined {
  const id = name
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '');
  return id === '' ? undefined : id;
}

type WithId<Step> = Omit<Step, 'derivedId' | 'id'> & { id: string };

/**
 * Gives each short step without an id its derived one, made unique in the task: the first
 * `cargo` step is `cargo`, the next `cargo-2`, and so on; an id a step names itself is never
 * taken (it wins), so only two steps naming the same id clash.
 */
export function withDerivedIds<Step extends { id?: string | undefined; derivedId?: string }>(steps: readonly Step[]): WithId<Step>[] {
  const taken = new Set(steps.flatMap((step) => (step.id === undefined ? [] : [step.id])));
  const counts = new Map<string, number>();
  return steps.map(({ derivedId, ...step }) => {
    if (step.id !== undefined) return step as WithId<Step>;
    const base = derivedId ?? 'step';
    let count = counts.get(base) ?? 0;
    let id: string;
    do {
      count += 1;
      id = count === 1 ? base : `${base}-${count}`;
    } while (taken.has(id));
    counts.set(base, count);
    taken.add(id);
    return { ...step, id } as WithId<Step>;
  });
}
