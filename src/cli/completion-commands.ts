import type { Command } from '@oclif/core';
import { builtinRegistry } from '../workflow/builtin-registry.js';
import type { CompletionCommand } from './completion-script.js';

/** Commands whose first argument is a tool name. */
const toolArgument = new Set(['invoke', 'tools']);
/** Commands whose arguments are `[FILE] TASK`. */
const taskArguments = new Set(['run', 'plan', 'matrix']);

/** What completion needs of oclif's command list: visible commands, their flags and argument values. */
export function completionCommands(commands: readonly Command.Loadable[]): CompletionCommand[] {
  const tools = builtinRegistry().names();
  const topLevel = [...new Set(commands.filter((command) => !command.hidden).map((command) => command.id.split(':')[0]!))];
  return commands
    .filter((command) => !command.hidden)
    .map((command) => {
      const firstArgument = Object.values(command.args ?? {})[0];
      const argumentValues = toolArgument.has(command.id) ? tools : command.id === 'help' ? topLevel : firstArgument?.options;
      return {
        id: command.id,
        summary: command.summary,
        flags: Object.entries(command.flags ?? {})
          .filter(([, flag]) => !flag.hidden)
          .map(([name, flag]) => ({
            name,
            char: flag.char,
            summary: flag.summary,
            takesValue: flag.type === 'option',
            options: flag.type === 'option' ? flag.options : undefined,
          })),
        ...(argumentValues && { argumentValues: [...argumentValues] }),
        ...(taskArguments.has(command.id) && { takesTask: true }),
      };
    });
}
