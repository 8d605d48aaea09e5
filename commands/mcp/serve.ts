import { Args } from '@oclif/core';
import { RhoCommand } from '../../src/cli/rho-command.js';
import { readCliEnvironment } from '../../src/cli/environment.js';

export default class McpServe extends RhoCommand {
  static override summary = 'Serve the tasks of a workflow file to an MCP client (an AI agent) over stdio.';
  static override description =
    `Each public task (and the default task, as "default") is one MCP tool whose input schema is the task's inputs. A call runs the task as rho run FILE TASK runs it: the file's policy, hooks, confinement and up-to-date checks, with nothing added. Requests the policy sends to ask are approved by the person behind the client (MCP elicitation), or denied when the client cannot ask. Secrets come from this process's environment only and are masked in everything the client receives.

stdout carries only JSON-RPC; diagnostics go to stderr. The tools are the file as it is when the server starts: a call after the file changed is refused until the server is restarted.`;

  static override examples = ['<%= config.bin %> mcp serve', '<%= config.bin %> mcp serve workflows/agent-tasks.yml'];

  static override args = {
    workflow: Args.string({ ignoreStdin: true, description: 'Workflow file; without one, rho.yml (or rho.yaml) here or in the nearest directory above', required: false }),
  };

  async run(): Promise<void> {
    const { args } = await this.parse(McpServe);
    const { serveWorkflowFile } = await import('../../src/cli/mcp-serve/serve.js');
    const code = await serveWorkflowFile({ file: args.workflow, version: this.config.version }, readCliEnvironment(), {
      stdin: process.stdin,
      stdout: process.stdout,
      stderr: process.stderr,
    });
    this.exit(code);
  }
}
