import { Command } from '@oclif/core';
import { exitCodes } from '../host/exit-codes.js';
import { describeUsageError } from './usage-errors.js';

/**
 * The base of every rho command: a usage error (an unknown flag, a missing file, a flag value
 * that does not parse) is one line on stderr and exit 2, not oclif's message followed by the
 * whole help. Every argument sets `ignoreStdin`: oclif would read a missing one from a stdin
 * that is not a terminal (waiting up to 10 ms for it), and rho never reads stdin for itself.
 */
export abstract class RhoCommand extends Command {
  /**
   * What `make` returns; an error of rho's it throws (a flag value that does not parse, no
   * workflow file to run) is one line on stderr and the exit code of the table.
   */
  protected async orExit<T>(make: () => Promise<T>): Promise<T> {
    try {
      return await make();
    } catch (error) {
      const { reportStartupError } = await import('./startup-errors.js');
      return this.exit(reportStartupError(error, (line) => process.stderr.write(`${line}\n`)));
    }
  }

  protected override async catch(error: Error & { exitCode?: number }): Promise<unknown> {
    const usage = describeUsageError(error, { name: this.id?.split(':').join(' ') ?? '', flags: this.ctor.flags ?? {} });
    if (usage === undefined) return super.catch(error);
    process.stderr.write(`rho: ${usage}\n`);
    return this.exit(exitCodes.usage);
  }
}
