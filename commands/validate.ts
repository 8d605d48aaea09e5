import { Args } from '@oclif/core';
import { RhoCommand } from '../src/cli/rho-command.js';

export default class Validate extends RhoCommand {
  static override summary = 'Check workflow files without running anything.';
  static override description =
    "Prints every problem as FILE:LINE:COL: message and exits 2 when any file is invalid: YAML syntax, the schema, unique step ids, references to earlier steps, unknown tools, tool arguments, expressions and policy rules. Runs none of the workflow's code, so it is safe on an untrusted workflow: tool modules are not imported and MCP servers are not started; a note names each of them, and each step whose tool could therefore not be inspected.";

  static override examples = ['<%= config.bin %> validate', '<%= config.bin %> validate workflows/hello.yml', '<%= config.bin %> validate workflows/*.yml'];
  static override strict = false;
  static override args = {
    workflow: Args.string({
      ignoreStdin: true,
      description: 'Workflow file(s) to check; without one, rho.yml (or rho.yaml) here or in the nearest directory above',
      required: false,
    }),
  };

  async run(): Promise<void> {
    const { argv } = await this.parse(Validate);
    const { validateWorkflowFiles } = await import('../src/cli/validate-files.js');
    const { readCliEnvironment } = await import('../src/cli/environment.js');
    const code = await validateWorkflowFiles(argv as string[], { stdout: process.stdout, stderr: process.stderr }, readCliEnvironment());
    if (code !== 0) this.exit(code);
  }
}
