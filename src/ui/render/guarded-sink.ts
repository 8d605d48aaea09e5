import type { SecretMasker } from '../../host/masking.js';
import type { TextSink } from './renderer.js';
import { safeText } from '../safe-text.js';

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
 * The white space the runner trims before looking for `::` (.NET's `Char.IsWhiteSpace`, which
 * knows U+0085 where JavaScript's `trimStart` does not).
 */
const runnerLeadingSpace = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]*/;

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
  // Neither form can be read without `::` or `##[`, and no line is split anew without `\r`.
  if (!text.includes('::') && !text.includes('##[') && !text.includes('\r')) return text;
  const end = /\r?\n$/.exec(text)?.[0] ?? '';
  const lines = text
    .slice(0, text.length - end.length)
    .split(runnerLineBreak)
    .map((line) => {
      const escaped = line.replaceAll('##[', '##[\\');
      return escaped.slice(runnerLeadingSpace.exec(escaped)![0].length).startsWith('::') ? `\\${escaped}` : escaped;
    });
  return `${lines.join('\n')}${end ? '\n' : ''}`;
}

export interface GuardedStreams {
  stdout: CommandSink;
  stderr: CommandSink;
}

/** Where the streams go: whether the GitHub Actions runner reads them, and which of them show colours. */
export interface StreamTargets {
  githubActions: boolean;
  colours: { stdout: boolean; stderr: boolean };
}

/**
 * The one way rho's text reaches stdout and stderr: every write is masked with the run's
 * secrets, then made safe to show (control characters and escape sequences written out, colour
 * codes kept only where colours show: see `safeText`), and on GitHub Actions every line is made
 * unable to act as a workflow command, so no caller has to remember any of it. Only `command()`
 * writes a workflow command.
 */
export function guardStreams(raw: { stdout: TextSink; stderr: TextSink }, masker: SecretMasker, targets: StreamTargets): GuardedStreams {
  const guard = (sink: TextSink, colours: boolean): CommandSink => ({
    write: (text) => {
      const safe = safeText(masker.mask(text), colours);
      sink.write(targets.githubActions ? neutralizeWorkflowCommands(safe) : safe);
    },
    command: (line) => sink.write(`${safeText(masker.mask(line), colours)}\n`),
  });
  return { stdout: guard(raw.stdout, targets.colours.stdout), stderr: guard(raw.stderr, targets.colours.stderr) };
}
