import { SecretMasker } from '../host/masking.js';
import { guardStreams, type GuardedStreams } from '../ui/render/guarded-sink.js';
import { streamTargets, type CliEnvironment, type RunStreams } from './environment.js';

/** Where a command's words go: stdout and stderr masked by its secrets and unable to act as a GitHub Actions command. */
export interface GuardedOutput {
  /** The command's secrets (a run adds its own); everything written below is masked with them. */
  readonly masker: SecretMasker;
  readonly streams: GuardedStreams;
  /** One line for the person running rho, on stderr. */
  warn(line: string): void;
}

/**
 * The one way a command that prints what a workflow file says (a run, a listing, a validation)
 * opens its output: the file is untrusted (a pull request's, in CI), so nothing of it reaches the
 * terminal or the runner's log unguarded.
 */
export function guardedOutput(rawStreams: RunStreams, environment: CliEnvironment): GuardedOutput {
  const masker = new SecretMasker();
  const streams = guardStreams(rawStreams, masker, streamTargets(environment));
  return { masker, streams, warn: (line) => streams.stderr.write(`${line}\n`) };
}
