import { Args } from '@oclif/core';
import { RhoCommand } from '../src/cli/rho-command.js';

export default class Autocomplete extends RhoCommand {
  static override summary = 'Print a shell completion script (bash, zsh or fish).';
  static override description =
    `Completes commands, flags, flag values (--output, schema names) and built-in tool names. The script holds everything it completes, so pressing Tab never starts rho; print it again after upgrading rho.

bash:  rho autocomplete bash > ~/.local/share/bash-completion/completions/rho
zsh:   rho autocomplete zsh > "\${fpath[1]}/_rho"   (or: source <(rho autocomplete zsh) in ~/.zshrc)
fish:  rho autocomplete fish > ~/.config/fish/completions/rho.fish`;

  static override examples = ['<%= config.bin %> autocomplete bash > ~/.local/share/bash-completion/completions/rho', 'source <(<%= config.bin %> autocomplete bash)'];
  static override args = { shell: Args.string({ ignoreStdin: true, description: 'Which shell', options: ['bash', 'zsh', 'fish'], default: 'bash' }) };

  async run(): Promise<void> {
    const { args } = await this.parse(Autocomplete);
    const { completionScript } = await import('../src/cli/completion-script.js');
    const { completionCommands } = await import('../src/cli/completion-commands.js');
    process.stdout.write(completionScript(args.shell as 'bash' | 'zsh' | 'fish', completionCommands(this.config.commands)));
  }
}
