import { Args, Command, Flags } from '@oclif/core';
import type { TaskListing } from '../src/workflow/task-list.js';

export default class List extends Command {
  static override summary = 'List the tasks of a workflow file.';
  static override description =
    'Shows each task `rho run FILE TASK` can run — the default task (the file’s top-level steps) first — with its parameters as `rho run` takes them, its description and its aliases, then the inputs every task reads. Private tasks are left out. Without FILE, lists rho.yml (or rho.yaml) here or in the nearest directory above. The file is validated first; exit 2 when it is invalid.';

  static override examples = [
    '<%= config.bin %> list',
    '<%= config.bin %> list workflows/tasks.yml',
    '<%= config.bin %> list workflows/tasks.yml --json',
    '<%= config.bin %> list --names',
  ];
  static override args = {
    workflow: Args.string({ ignoreStdin: true, description: 'Workflow file; without one, rho.yml (or rho.yaml) here or in the nearest directory above', required: false }),
  };
  static override flags = {
    names: Flags.boolean({ summary: 'Print only the task names and their aliases, one a line (what shell completion offers).' }),
  };
  static override enableJsonFlag = true;

  async run(): Promise<TaskListing | undefined> {
    const { args, flags } = await this.parse(List);
    const { listTasksCommand } = await import('../src/cli/list-tasks.js');
    const { readCliEnvironment } = await import('../src/cli/environment.js');
    const streams = { stdout: process.stdout, stderr: process.stderr };
    const { exitCode, listing } = await listTasksCommand(args.workflow, streams, readCliEnvironment(), {
      print: this.jsonEnabled() ? 'nothing' : flags.names ? 'names' : 'listing',
    });
    if (exitCode !== 0) this.exit(exitCode);
    return listing;
  }
}
