import { Args, Flags } from '@oclif/core';
import { RhoCommand } from '../src/cli/rho-command.js';

export default class Init extends RhoCommand {
  static override summary = 'Write a commented example workflow.';
  static override description = 'The example validates and runs as written; its comments are a short tour of the format.';
  static override examples = ['<%= config.bin %> init', '<%= config.bin %> init ci/release.yml', '<%= config.bin %> init --force'];
  static override args = { file: Args.string({ ignoreStdin: true, description: 'Where to write it', default: 'rho.yml' }) };
  static override flags = { force: Flags.boolean({ summary: 'Replace the file if it exists.', default: false }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Init);
    const { writeStarterWorkflow } = await import('../src/cli/init-file.js');
    const written = await this.orExit(() => writeStarterWorkflow(args.file, flags.force));
    if (written.createdDirectory) this.log(`Created the directory ${written.createdDirectory}.`);
    this.log(`Wrote ${args.file}. Run it with: rho run ${args.file}`);
  }
}
