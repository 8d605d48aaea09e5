import os from 'node:os';

/** What `rho.*` reads in expressions: where and how this run happens. */
export type RunContext = {
  /** The canonical primary workspace root. */
  workspace: string;
  /** The directory of the workflow file. */
  workflow_dir: string;
  /** Where rho was invoked. */
  cwd: string;
  /** Node's platform name: linux, darwin, win32. */
  os: string;
  /** Node's architecture name: x64, arm64. */
  arch: string;
  /** Whether the run is in CI (`CI` set to anything but empty, false or 0). */
  ci: boolean;
  /** The task run (`rho run FILE TASK`); null for the default task. */
  task: string | null;
};

export const runContextKeys: readonly (keyof RunContext)[] = ['workspace', 'workflow_dir', 'cwd', 'os', 'arch', 'ci', 'task'];

/** The one reading of the `CI` variable, shared by the CLI (prompts, output) and `rho.ci`. */
export function isCiEnvironment(env: Readonly<Record<string, string | undefined>>): boolean {
  return env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0';
}

export function runContextOf(facts: {
  workspace: string;
  workflowDir: string;
  cwd: string;
  task: string | undefined;
  hostEnv: Readonly<Record<string, string | undefined>>;
}): RunContext {
  return {
    workspace: facts.workspace,
    workflow_dir: facts.workflowDir,
    cwd: facts.cwd,
    os: os.platform(),
    arch: os.arch(),
    ci: isCiEnvironment(facts.hostEnv),
    task: facts.task ?? null,
  };
}
