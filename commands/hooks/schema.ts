import { Args } from '@oclif/core';
import { RhoCommand } from '../../src/cli/rho-command.js';
import type { HookSchemaName } from '../../src/hooks/json-schemas.js';

/** The schema names, checked against the module's type so the zod schemas load only when one is printed. */
const schemaNames: Record<HookSchemaName, true> = { envelope: true, 'gate-answer': true };

export default class HooksSchema extends RhoCommand {
  static override summary = 'Print the JSON Schema of hook envelopes or gate answers.';
  static override description = `envelope: the JSON object a hook program reads on stdin (schema_version 2).
gate-answer: what a [[pre_tool_use]] gate prints on stdout.
The same files ship in the package under schemas/.`;

  static override examples = ['<%= config.bin %> hooks schema > hook-envelope.schema.json', '<%= config.bin %> hooks schema gate-answer'];

  static override args = {
    which: Args.string({ ignoreStdin: true, description: 'Which schema', options: Object.keys(schemaNames), default: 'envelope' }),
  };

  async run(): Promise<void> {
    const { args } = await this.parse(HooksSchema);
    const { hookJsonSchemaText } = await import('../../src/hooks/json-schemas.js');
    process.stdout.write(hookJsonSchemaText(args.which as HookSchemaName));
  }
}
