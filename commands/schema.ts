import { Args } from '@oclif/core';
import { RhoCommand } from '../src/cli/rho-command.js';
import type { SchemaName } from '../src/workflow/json-schemas.js';

/** The schema names, checked against the module's type so the zod schemas load only when one is printed. */
const schemaNames: Record<SchemaName, true> = { workflow: true, events: true };

export default class Schema extends RhoCommand {
  static override summary = 'Print a JSON Schema: the workflow format (default) or an NDJSON event line.';
  static override description =
    'The schemas are generated from the zod schemas rho validates with, so editors and scripts see exactly what rho accepts. Copies ship in the package under schemas/.';

  static override examples = [
    '<%= config.bin %> schema > workflow.schema.json',
    '<%= config.bin %> schema events',
    '# in a workflow file, for editor completion:\n# yaml-language-server: $schema=./node_modules/rho-cli/schemas/workflow.schema.json',
  ];

  static override args = {
    name: Args.string({ ignoreStdin: true, description: 'Which schema', options: Object.keys(schemaNames), default: 'workflow' }),
  };

  static override enableJsonFlag = false;

  async run(): Promise<void> {
    const { args } = await this.parse(Schema);
    const { jsonSchemas } = await import('../src/workflow/json-schemas.js');
    this.log(JSON.stringify(jsonSchemas[args.name as SchemaName](), null, 2));
  }
}
