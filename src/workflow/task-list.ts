import { passThroughInput, type InputDeclaration, type WorkflowFile } from './schema.js';

export interface ListedInput {
  name: string;
  type: InputDeclaration['type'];
  required: boolean;
  default?: InputDeclaration['default'];
  description?: string;
}

export interface ListedTask {
  /** The name `rho run FILE NAME` takes; null for the default task (top-level steps:). */
  name: string | null;
  description: string | undefined;
  /** What `-i` may set for it: the file's inputs and the task's own. */
  inputs: ListedInput[];
  steps: number;
}

export interface TaskListing {
  file: string;
  workflow: string;
  tasks: ListedTask[];
}

/** The tasks a valid workflow file offers, the default task first, then by name as written. */
export function listTasks(file: string, workflow: WorkflowFile): TaskListing {
  const inputsOf = (declared: Readonly<Record<string, InputDeclaration>>): ListedInput[] =>
    Object.entries(declared).map(([name, input]) => ({
      name,
      type: input.type,
      required: input.required ?? false,
      ...(input.default !== undefined && { default: input.default }),
      ...(input.description !== undefined && { description: input.description }),
    }));
  const tasks: ListedTask[] = [];
  if (workflow.steps) tasks.push({ name: null, description: workflow.description, inputs: inputsOf(workflow.inputs ?? {}), steps: workflow.steps.length });
  for (const [name, task] of Object.entries(workflow.tasks ?? {})) {
    tasks.push({ name, description: task.description, inputs: inputsOf({ ...workflow.inputs, ...task.inputs }), steps: task.steps.length });
  }
  return { file, workflow: workflow.name, tasks };
}

/** `rho list` as text: one line a task, aligned, with its inputs as the -i flags that set them. */
export function formatTaskListing(listing: TaskListing): string[] {
  const label = (task: ListedTask) => task.name ?? '(default)';
  const width = Math.max(...listing.tasks.map((task) => label(task).length));
  const lines = [`Tasks in ${listing.file}:`];
  for (const task of listing.tasks) {
    const inputs = task.inputs.map((input) => (input.name === passThroughInput && input.type === 'array' ? '-- ARGS…' : `-i ${input.name}=${shownDefault(input)}`));
    const parts = [task.description?.split('\n')[0], inputs.length > 0 ? `[${inputs.join(' ')}]` : undefined].filter(Boolean);
    lines.push(`  ${label(task).padEnd(width)}${parts.length > 0 ? `  ${parts.join('  ')}` : ''}`.trimEnd());
  }
  return lines;
}

function shownDefault(input: ListedInput): string {
  if (input.default === undefined) return input.required ? '…' : '';
  return Array.isArray(input.default) ? input.default.join(',') : String(input.default);
}
