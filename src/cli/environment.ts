import type { StreamTargets } from '../ui/render/guarded-sink.js';
import type { TextSink } from '../ui/render/renderer.js';
import { isCiEnvironment } from '../workflow/run-context.js';

/** Facts about where the CLI runs, read once from the process (never inside src/host). */
export interface CliEnvironment {
  env: Readonly<Record<string, string | undefined>>;
  ci: boolean;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
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
    stderrIsTTY: process.stderr.isTTY === true,
    githubActions: env.GITHUB_ACTIONS === 'true',
    stepSummaryFile: env.GITHUB_STEP_SUMMARY || undefined,
  };
}

/**
 * Where the CLI's streams go: colour codes a step prints pass to a terminal and to the GitHub
 * Actions log (which shows them), unless NO_COLOR is set (https://no-color.org); anywhere else
 * they are removed.
 */
export function streamTargets(environment: Pick<CliEnvironment, 'env' | 'stdoutIsTTY' | 'stderrIsTTY' | 'githubActions'>): StreamTargets {
  const noColour = (environment.env['NO_COLOR'] ?? '') !== '';
  const shows = (isTTY: boolean) => !noColour && (isTTY || environment.githubActions);
  return { githubActions: environment.githubActions, colours: { stdout: shows(environment.stdoutIsTTY), stderr: shows(environment.stderrIsTTY) } };
}

/** Whether anyone can be asked anything: a TTY on stdin, not CI, and not --no-input. */
export function canPrompt(environment: CliEnvironment, noInput: boolean): boolean {
  return environment.stdinIsTTY && !environment.ci && !noInput;
}

/** The process's stdout and stderr, as a command writes to them (tests pass their own). */
export interface RunStreams {
  stdout: TextSink;
  stderr: TextSink;
}

/** A sink that may also be a Node stream: whether its buffer is past its high-water mark, and its events. */
type DrainingSink = TextSink & Partial<Pick<NodeJS.WritableStream, 'once' | 'off'>> & { writableNeedDrain?: boolean };

/**
 * While a sink that is a Node stream holds more than its high-water mark (its reader is behind),
 * a promise that settles once it has drained or closed; otherwise undefined.
 */
export function drainOf(sink: TextSink): Promise<void> | undefined {
  const stream: DrainingSink = sink;
  if (stream.writableNeedDrain !== true || stream.once === undefined || stream.off === undefined) return undefined;
  const { once, off } = stream;
  return new Promise((resolve) => {
    const done = () => {
      off.call(stream, 'drain', done);
      off.call(stream, 'close', done);
      resolve();
    };
    once.call(stream, 'drain', done);
    once.call(stream, 'close', done);
  });
}
