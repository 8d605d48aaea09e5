import { parameterUsage, taskParameters } from './task-parameters.js';
import type { InputDeclaration, WorkflowFile } from './schema.js';
import { isPrivateTask } from './task-names.js';

export interface ListedInput {
  name: string;
  type: InputDeclaration['type'];
  required: boolean;
  default?: InputDeclaration['default'];
  description?: string;
}

export interface ListedParameter extends ListedInput {
  /** The last parameter of type array: it takes every value left on the command line. */
  variadic: boolean;
}

export interface ListedTask {
  /** The name `rho run FILE NAME` takes; null for the default task (top-level steps:). */
  name: string | null;
  /** Other names `rho run` takes for it. */
  aliases: string[];
  description: string | undefined;
  /** Its own inputs, in order: `rho run FILE NAME VALUE...` fills them. */
  parameters: ListedParameter[];
  steps: number;
}

export interface TaskListing {
  file: string;
  workflow: string;
  /** The file's inputs, which every task reads: set with `-i NAME=VALUE` or `NAME=VALUE`. */
  inputs: ListedInput[];
  tasks: ListedTask[];
}

function listed(declared: Readonly<Record<string, InputDeclaration>>): ListedInput[] {
  return Object.entries(declared).map(([name, input]) => ({
    name,
    type: input.type,
    required: input.required ?? false,
    ...(input.default !== undefined && { default: input.default }),
    ...(input.description !== undefined && { description: input.description }),
  }));
}

/** The tasks a valid workflow file offers, the default task first, then by name as written; private tasks are left out. */
export function listTasks(file: string, workflow: WorkflowFile): TaskListing {
  const tasks: ListedTask[] = [];
  if (workflow.steps) tasks.push({ name: null, aliases: [], description: workflow.description, parameters: [], steps: workflow.steps.length });
  for (const [name, task] of Object.entries(workflow.tasks ?? {})) {
    if (isPrivateTask(name, task)) continue;
    const variadic = taskParameters(task.inputs ?? {}).map((parameter) => parameter.variadic);
    const parameters = listed(task.inputs ?? {}).map((input, index) => ({ ...input, variadic: variadic[index]! }));
    tasks.push({ name, aliases: task.aliases ?? [], description: task.description, parameters, steps: task.steps.length });
  }
  return { file, workflow: workflow.name, inputs: listed(workflow.inputs ?? {}), tasks };
}

/** The words `rho run TASK` takes for the listed tasks: each name, then its aliases. */
export function taskWords(listing: TaskListing): string[] {
  return listing.tasks.flatMap((task) => (task.name === null ? [] : [task.name, ...task.aliases]));
}

/** `rho list` as text: one line a task (its parameters as `rho run` takes them, its description, its aliases), then the file's inputs once. */
export function formatTaskListing(listing: TaskListing): string[] {
  const label = (task: ListedTask) => (task.name === null ? '(default)' : [task.name, ...task.parameters.map(parameterUsage)].join(' '));
  const width = Math.max(...listing.tasks.map((task) => label(task).length));
  const lines = [`Tasks in ${listing.file}:`];
  for (const task of listing.tasks) {
    const aliases = task.aliases.length === 0 ? undefined : `[${task.aliases.length === 1 ? 'alias' : 'aliases'}: ${task.aliases.join(', ')}]`;
    const parts = [task.description?.split('\n')[0], aliases].filter(Boolean);
    lines.push(`  ${label(task).padEnd(width)}${parts.length > 0 ? `  ${parts.join('  ')}` : ''}`.trimEnd());
  }
  if (listing.inputs.length > 0) lines.push(`Inputs of every task: ${listing.inputs.map((input) => `-i ${input.name}=${shownDefault(input)}`).join(' ')}`);
  return lines;
}

function shownDefault(input: ListedInput): string {
  if (input.default === undefined) return input.required ? '…' : '';
  return Array.isArray(input.default) ? input.default.join(',') : String(input.default);
}
