import { z } from 'zod';
import { HostError } from '../host/errors.js';
import { describeIssues } from '../host/arguments.js';
import { builtOnce } from '../host/built-once.js';
import { sandboxModes } from '../host/confinement/modes.js';
import { exitCodeSources } from '../host/exit-codes.js';

/**
 * What a front end decides about one run — for the CLI, its flags — parsed once and passed
 * whole. The workflow file supplies the rest (`resolveHostConfig`). Built on first use: every
 * command's module loads this file, and `--help` or `list` never parse run choices.
 */
const runChoicesSchema = builtOnce(() => {
  const ruleTexts = z.array(z.string().min(1)).default([]);
  return z.strictObject({
    /** `rho run FILE TASK`: a name under the file's `tasks:`; its top-level steps when absent. */
    task: z.string().min(1).optional(),
    /** The words after the task on the command line: its parameters, in order, and `NAME=VALUE` inputs. */
    arguments: z.array(z.string()).default([]),
    /** What followed `--` on the command line: the task's variadic parameter, or its `args` input. */
    passThrough: z.array(z.string()).default([]),
    /** How the command line names the task (`rho run just.yml filter`), for usage lines. */
    invocation: z.string().default('rho run'),
    /** `--matrix NAME=VALUE`: run only the matrix cells that match. */
    matrix: z.array(z.string()).default([]),
    /** `--workspace`, relative to the directory rho was started in; overrides the file's `workspace:`. */
    workspace: z.string().min(1).optional(),
    /** `-j`; overrides the file's `max_parallel`. */
    maxParallel: z.number().int().min(1).optional(),
    /** `-i KEY=VALUE`, checked against the workflow's `inputs:`. */
    inputs: z.array(z.string()).default([]),
    /** `--allow/--ask/--deny`, joined to the file's rules. */
    rules: z.strictObject({ allow: ruleTexts, ask: ruleTexts, deny: ruleTexts }).default({ allow: [], ask: [], deny: [] }),
    /** `--approve RULE`. */
    approve: ruleTexts,
    /** `--yes`. */
    yes: z.boolean().default(false),
    /** `--sandbox`; overrides the file's `policy.sandbox` (default `auto`). */
    sandbox: z.enum(sandboxModes).optional(),
    /** `--exit-code`: whether a failed run exits 1 or with the exit code of the program that failed first. */
    exitCode: z.enum(exitCodeSources).default('rho'),
    /** `--force` (every step runs, up to date or not) or `--force-step STEP` (those steps do). */
    force: z.union([z.boolean(), z.array(z.string().min(1))]).default(false),
  });
});

type RunChoicesSchema = ReturnType<typeof runChoicesSchema>;
export type RunChoices = z.output<RunChoicesSchema>;
export type RawRunChoices = z.input<RunChoicesSchema>;

export function parseRunChoices(raw: RawRunChoices): RunChoices {
  const parsed = runChoicesSchema().safeParse(raw);
  if (!parsed.success) throw new HostError('usage', `run options: ${describeIssues(parsed.error.issues)}`, { cause: parsed.error });
  return parsed.data;
}
