import type { TaskFile, WorkflowFile } from './schema.js';

/** A private task is hidden from `rho list` and completion, still run by name and by `uses:`: `private: true`, or a name that starts with `_`. */
export function isPrivateTask(name: string, task: Pick<TaskFile, 'private'>): boolean {
  return task.private === true || name.startsWith('_');
}

/** The task a name on the command line means: a task's own name, or one of its `aliases:`. */
export function resolveTaskName(file: Pick<WorkflowFile, 'tasks'>, name: string): string | undefined {
  const tasks = file.tasks ?? {};
  if (Object.hasOwn(tasks, name)) return name;
  return Object.entries(tasks).find(([, task]) => task.aliases?.includes(name))?.[0];
}

/** The task an alias names, when `name` is an alias and not a task. */
export function aliasTarget(file: Pick<WorkflowFile, 'tasks'>, name: string): string | undefined {
  const target = resolveTaskName(file, name);
  return target === name ? undefined : target;
}

/** The names a person is offered: every task that is not private, and their aliases. */
export function publicTaskNames(file: Pick<WorkflowFile, 'tasks'>): string[] {
  return Object.entries(file.tasks ?? {}).flatMap(([name, task]) => (isPrivateTask(name, task) ? [] : [name, ...(task.aliases ?? [])]));
}
