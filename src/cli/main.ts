import { Errors, flush, handle, run } from '@oclif/core';
import { exitCodes } from '../host/exit-codes.js';
import { closestNames } from '../workflow/suggest.js';

/**
 * Runs the CLI as oclif's `execute` does, except for a command that does not exist: one line
 * with a did-you-mean and exit 2, where oclif would glue the following arguments into the
 * name it reports (`command rnu:wf.yml not found`).
 */
export async function main(dir: string, commandIds: readonly string[], argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  try {
    await run([...argv], dir);
    // Awaited, unlike oclif's execute: a stdout that never drains is then reported by handle(), not left as an unhandled rejection.
    await flush();
  } catch (error) {
    if (error instanceof Errors.CLIError && /^command \S+ not found$/.test(error.message)) {
      process.stderr.write(`rho: ${describeUnknownCommand(argv, commandIds)}\n`);
      process.exitCode = exitCodes.usage;
      return;
    }
    await handle(error as Error);
  }
}

/** `unknown command "rnu"; did you mean "run"?`, for the words typed before the first flag or file. */
export function describeUnknownCommand(argv: readonly string[], commandIds: readonly string[]): string {
  const words = argv.filter((word) => !word.startsWith('-'));
  const ids = commandIds.map((id) => id.split(':'));
  // The longest run of typed words that is a topic (`hooks`), and the word after it that is unknown.
  let depth = 0;
  while (depth < words.length - 1 && ids.some((id) => id.length > depth + 1 && id.slice(0, depth + 1).join(' ') === words.slice(0, depth + 1).join(' '))) depth++;
  const topic = words.slice(0, depth);
  const typed = words[depth] ?? '';
  const siblings = ids.filter((id) => id.length === depth + 1 && id.slice(0, depth).join(' ') === topic.join(' ')).map((id) => id[depth]!);
  const siblingTopics = ids.filter((id) => id.length > depth + 1 && id.slice(0, depth).join(' ') === topic.join(' ')).map((id) => id[depth]!);
  const suggestions = closestNames(typed, [...new Set([...siblings, ...siblingTopics])]).map((name) => `"${[...topic, name].join(' ')}"`);
  const named = [...topic, typed].join(' ');
  const hint = suggestions.length > 0 ? `; did you mean ${suggestions.join(' or ')}?` : '';
  return `unknown command "${named}"${hint} (see rho help${topic.length > 0 ? ` ${topic.join(' ')}` : ''})`;
}
