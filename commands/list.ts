import { Args, Command } from '@oclif/core';
import type { TaskListing } from '../src/workflow/task-list.js';

export default class List extends Command {
  static override summary = 'List the tasks of a workflow file.';
  static override description =
    'Shows each task `rho run FILE TASK` can run — the default task (the file’s top-level steps) first — with its description and the inputs `-i` can set. The file is validated first; exit 2 when it is invalid.';

  static override examples = ['<%= config.bin %> list workflows/tasks.yml', '<%= config.bin %> list workflows/tasks.yml --json'];
  static override args = { workflow: Args.string({ ignoreStdin: true, description: 'Workflow file (YAML)', required: true }) };
  static override enableJsonFlag = true;

  async run(): Promise<TaskListing | undefined> {
    const { args } = await this.parse(List);
    const { listTasksCommand } = await import('../src/cli/list-tasks.js');
    const { readCliEnvironment } = await import('../src/cli/environment.js');
    const streams = { stdout: process.stdout, stderr: process.stderr };
    const { exitCode, listing } = await listTasksCommand(args.workflow, streams, readCliEnvironment(), { print: !this.jsonEnabled() });
    if (exitCode !== 0) this.exit(exitCode);
    return listing;
  }
}
