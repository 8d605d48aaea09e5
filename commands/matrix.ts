import { Command, Flags } from '@oclif/core';
import { taskArg, workflowArg } from '../src/cli/run-flags.js';

export default class Matrix extends Command {
  static override summary = 'Print a matrix step’s cells as JSON for a CI engine’s own matrix.';
  static override description =
    `Prints {"include": [...]} — one object per cell — in the shape GitHub Actions' strategy.matrix takes through fromJSON(), so a CI engine that already spreads work across machines runs one cell on each with rho run FILE TASK --matrix NAME=VALUE. Exit 2 when the task has no matrix step, or several and no --step.`;

  static override examples = [
    '<%= config.bin %> matrix workflows/matrix.yml test',
    '<%= config.bin %> matrix test',
    '<%= config.bin %> matrix ci.yml --step unit',
    '<%= config.bin %> matrix test --pairs',
  ];
  static override args = { workflow: workflowArg, task: taskArg };
  static override flags = {
    step: Flags.string({ summary: 'The matrix step, when the task has more than one.', helpValue: 'ID' }),
    pairs: Flags.boolean({ summary: 'Print every NAME=VALUE that --matrix accepts, one a line (of every matrix step of the task without --step), instead of the JSON.' }),
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Matrix);
    const { printMatrixCommand } = await import('../src/cli/print-matrix.js');
    const code = await printMatrixCommand(
      { words: argv as string[], pairs: flags.pairs, ...(flags.step !== undefined && { step: flags.step }) },
      { stdout: process.stdout, stderr: process.stderr },
    );
    if (code !== 0) this.exit(code);
  }
}
