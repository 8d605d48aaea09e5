import { Args, Flags } from '@oclif/core';
import { sandboxModes } from '../host/confinement/modes.js';
import { exitCodeSources } from '../host/exit-codes.js';
import { outputModes } from '../ui/render/choose.js';
import { reportFormats, type ReportFlag } from '../ui/render/report-formats.js';

/**
 * A flag that may be given more than once. Each occurrence takes exactly one value, so it can
 * stand before the positional arguments like any CLI's (`rho run -i who=bob wf.yml`); its empty
 * default is not printed by --help (`respectNoCacheDefault` in package.json).
 */
export function repeatable(summary: string, helpValue: string, char?: 'i') {
  return Flags.string({ summary, helpValue, multiple: true, multipleNonGreedy: true, default: [], noCacheDefault: true, ...(char && { char }) });
}

/** Flags shared by `run`, `plan` and `invoke`: policy rules and scripted approvals. */
export const policyFlags = {
  workspace: Flags.string({ char: 'w', summary: 'Primary workspace root (overrides the file’s workspace:).', helpValue: 'DIR' }),
  allow: repeatable('Add an allow rule, e.g. "write(dist/**)". Repeatable.', 'RULE'),
  ask: repeatable('Add a rule that requires approval. Repeatable.', 'RULE'),
  deny: repeatable('Add a deny rule. Repeatable.', 'RULE'),
  approve: repeatable('Answer approval requests that match RULE with "allow once". Repeatable.', 'RULE'),
  yes: Flags.boolean({ char: 'y', summary: 'Answer every approval request with "allow once" (never overrides a deny).', default: false }),
  'no-input': Flags.boolean({ summary: 'Never prompt, even on a terminal (implied by CI=true or no TTY).', default: false }),
  sandbox: Flags.string({
    summary: 'Confine processes with bubblewrap: auto (where it works), required (exit 2 if it cannot), off. Overrides policy.sandbox.',
    options: [...sandboxModes],
  }),
};

/** The workflow positional of `run`, `plan` and `matrix`: optional, as the file can be found. */
export const workflowArg = Args.string({
  ignoreStdin: true,
  description: 'Workflow file; without one, rho.yml (or rho.yaml) here or in the nearest directory above, and a word that is a task of that file runs it',
  required: false,
});

/** The optional task positional of `run` and `plan`: a name under the file's `tasks:`, or one of its aliases. */
export const taskArg = Args.string({ ignoreStdin: true, description: 'Task to run (a name under tasks:, or an alias); the file’s top-level steps when absent', required: false });

/** What follows the task: its parameters in order, and NAME=VALUE inputs. */
export const taskArgumentsArg = Args.string({ ignoreStdin: true, description: 'The task’s parameters, in order, and NAME=VALUE inputs', required: false });

/**
 * Splits a command line at `--`: what follows goes to the task as its `args` input, unparsed
 * (`rho run FILE TASK -- --watch`), so flags meant for the task are never read as rho's.
 */
export function splitPassThrough(argv: readonly string[]): { argv: string[]; passThrough: string[] } {
  const at = argv.indexOf('--');
  return at < 0 ? { argv: [...argv], passThrough: [] } : { argv: argv.slice(0, at), passThrough: argv.slice(at + 1) };
}

/** Flags of `plan`: everything that shapes what a run would do. */
export const planFlags = {
  workspace: policyFlags.workspace,
  allow: policyFlags.allow,
  ask: policyFlags.ask,
  deny: policyFlags.deny,
  sandbox: policyFlags.sandbox,
  'max-parallel': Flags.integer({ char: 'j', summary: 'Limit on concurrently executing steps.', min: 1, helpValue: 'N' }),
  input: repeatable('Workflow input KEY=VALUE. Repeatable.', 'KEY=VALUE', 'i'),
  hooks: Flags.string({ summary: 'Hooks file (TOML): consult its pre-tool gates, and the workflow’s own, about each request.', helpValue: 'FILE' }),
  matrix: repeatable('Run only the matrix cells whose NAME is VALUE (one machine’s share of a CI matrix). Repeatable.', 'NAME=VALUE'),
};

const fileFlag = (summary: string) => Flags.string({ summary, helpValue: 'FILE' });

/** `--events FILE`, `--junit FILE`: one flag per report format. */
const reportFlags = Object.fromEntries(reportFormats.map((format) => [format.flag, fileFlag(format.summary)])) as Record<ReportFlag, ReturnType<typeof fileFlag>>;

export const runFlags = {
  ...policyFlags,
  'max-parallel': planFlags['max-parallel'],
  input: planFlags.input,
  matrix: planFlags.matrix,
  'dry-run': Flags.boolean({ summary: 'Print the plan (as rho plan) and run nothing.', default: false }),
  output: Flags.string({
    summary: 'Output: auto (fancy on a terminal outside CI, else plain), fancy, plain, or json (NDJSON events on stdout).',
    options: [...outputModes],
    default: 'auto',
  }),
  hooks: Flags.string({ summary: 'Hooks file (TOML): pre-tool gates and observers.', helpValue: 'FILE' }),
  label: repeatable('Non-secret host label KEY=VALUE passed to hooks. Repeatable.', 'KEY=VALUE'),
  answer: repeatable('Answer questionnaire question ID (lists comma-separated). Repeatable.', 'ID=VALUE'),
  answers: Flags.string({ summary: 'YAML/JSON map of question id → answer.', helpValue: 'FILE' }),
  'question-timeout': Flags.integer({ summary: 'Enable questionnaire timeouts: fallback answers apply after SECONDS.', min: 1, helpValue: 'SECONDS' }),
  ...reportFlags,
  'output-limit': Flags.string({
    summary: 'Most of each step’s output shown (plain, GitHub Actions, JSON, JUnit); the rest is counted in one line and kept in its log. Default 10MiB; none for no limit.',
    helpValue: 'SIZE',
  }),
  logs: Flags.string({
    summary: 'Keep each step’s whole output under DIR (default: the user’s state directory, ~/.local/state/rho/logs).',
    helpValue: 'DIR',
    exclusive: ['no-logs'],
  }),
  'no-logs': Flags.boolean({ summary: 'Keep no step logs.', default: false }),
  timeout: Flags.string({ summary: 'Whole-run wall limit (90s, 5m); exit 124 when it expires.', helpValue: 'DURATION' }),
  force: Flags.boolean({ summary: 'Run every step, even those that are up to date.', default: false }),
  'force-step': repeatable('Run step STEP even if it is up to date. Repeatable.', 'STEP'),
  watch: Flags.boolean({ summary: 'Run again whenever a source file changes (Ctrl-C stops).', default: false }),
  'exit-code': Flags.string({
    summary: 'On a failure, exit 1 (rho) or with the exit code of the program that failed first (program), as just does.',
    options: [...exitCodeSources],
    default: 'rho',
  }),
};
