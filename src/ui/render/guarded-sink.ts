import type { SecretMasker } from '../../host/masking.js';
import type { RunEvent } from '../../host/events.js';
import type { Renderer, TextSink } from './renderer.js';

/** A sink that may also write GitHub Actions workflow commands (only rho's own, never step text). */
export interface CommandSink extends TextSink {
  /** Writes one workflow command line as it is; its data and properties must already be escaped. */
  command(line: string): void;
}

/**
 * Line breaks as the GitHub Actions runner reads them: it splits a process's output with .NET's
 * `StreamReader.ReadLine`, which ends a line at `\n`, at `\r\n` and at a lone `\r`.
 */
export const runnerLineBreak = /\r\n|\r|\n/;

/**
 * Makes text unable to act as a workflow command when the runner reads it, line by line:
 *  - a lone `\r` would start a new line for the runner, so every line break is made a `\n`;
 *  - the runner parses `::name::` when a line starts with it (after leading white space), so such
 *    a line gets a backslash before it;
 *  - the legacy form `##[name]` is recognised anywhere in a line, so `##[` becomes `##[\` (the
 *    escape the runner itself applies to `##[start-action`), which names no command.
 * Commands are escaped rather than suspended with `::stop-commands::`: the runner reads stdout
 * and stderr on separate threads, so a stop written on one stream does not order the other.
 */
export function neutralizeWorkflowCommands(text: string): string {
  const end = /\r?\n$/.exec(text)?.[0] ?? '';
  const lines = text.slice(0, text.length - end.length).split(runnerLineBreak).map((line) => {
    const escaped = line.replaceAll('##[', '##[\\');
    return escaped.trimStart().startsWith('::') ? `\\${escaped}` : escaped;
  });
  return `${lines.join('\n')}${end ? '\n' : ''}`;
}

export interface GuardedStreams {
  stdout: CommandSink;
  stderr: CommandSink;
}

/**
 * The one way rho's own text reaches stdout and stderr: every write is masked with the run's
 * secrets, and on GitHub Actions every line is made unable to act as a workflow command, so no
 * caller has to remember either. Only `command()` writes a workflow command.
 */
export function guardStreams(raw: { stdout: TextSink; stderr: TextSink }, masker: SecretMasker, githubActions: boolean): GuardedStreams {
  const guard = (sink: TextSink): CommandSink => ({
    write: (text) => sink.write(githubActions ? neutralizeWorkflowCommands(masker.mask(text)) : masker.mask(text)),
    command: (line) => sink.write(`${masker.mask(line)}\n`),
  });
  return { stdout: guard(raw.stdout), stderr: guard(raw.stderr) };
}

/** Hands every event to a renderer with the run's secrets masked, whoever produced it. */
export class MaskingRenderer implements Renderer {
  readonly promptTerminal;

  constructor(
    private readonly renderer: Renderer,
    private readonly masker: SecretMasker,
  ) {
    this.promptTerminal = renderer.promptTerminal;
  }

  handle(event: RunEvent): void {
    this.renderer.handle(this.masker.maskDeep(event));
  }

  close(): Promise<void> {
    return this.renderer.close();
  }
}
