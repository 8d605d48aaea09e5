import { Args, Help } from '@oclif/core';
import { RhoCommand } from '../src/cli/rho-command.js';

export default class HelpCommand extends RhoCommand {
  static override summary = 'Show help for rho, or for one command.';
  static override description = 'The same text as --help: `rho help run` is `rho run --help`.';
  static override examples = ['<%= config.bin %> help', '<%= config.bin %> help run', '<%= config.bin %> help hooks test'];
  static override strict = false;
  static override args = { command: Args.string({ ignoreStdin: true, description: 'A command (words of a nested one separated by spaces)' }) };

  async run(): Promise<void> {
    const { argv } = await this.parse(HelpCommand);
    const options = this.config.pjson.oclif.helpOptions ?? {};
    await new Help(this.config, options).showHelp(argv as string[]);
  }
}
