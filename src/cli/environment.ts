import { isCiEnvironment } from '../workflow/run-context.js';

/** Facts about where the CLI runs, read once from the process (never inside src/host). */
export interface CliEnvironment {
  env: Readonly<Record<string, string | undefined>>;
  ci: boolean;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  githubActions: boolean;
  stepSummaryFile: string | undefined;
}

export function readCliEnvironment(): CliEnvironment {
  const env = { ...process.env };
  const ci = isCiEnvironment(env);
  return {
    env,
    ci,
    stdinIsTTY: process.stdin.isTTY === true,
    stdoutIsTTY: process.stdout.isTTY === true,
    githubActions: env.GITHUB_ACTIONS === 'true',
    stepSummaryFile: env.GITHUB_STEP_SUMMARY || undefined,
  };
}

/** Whether anyone can be asked anything: a TTY on stdin, not CI, and not --no-input. */
export function canPrompt(environment: CliEnvironment, noInput: boolean): boolean {
  return environment.stdinIsTTY && !environment.ci && !noInput;
}
