import path from 'node:path';
import type { TaskReference } from './model.js';
import type { WorkflowSource } from './source.js';

/**
 * The task a `uses:` value names: `TASK` of the calling file, or `./path/file.yml[#TASK]` of
 * another file, its path relative to the calling file's directory (its default task without
 * `#TASK`). The schema has already checked the shape.
 */
export function parseUsesTarget(text: string, caller: WorkflowSource): TaskReference {
  if (!text.startsWith('./') && !text.startsWith('../')) return { file: path.resolve(caller.file), task: text };
  const hash = text.lastIndexOf('#');
  const relative = hash < 0 ? text : text.slice(0, hash);
  return { file: path.resolve(caller.directory, relative), task: hash < 0 ? undefined : text.slice(hash + 1) };
}

/** Whether a `uses:` value names another file. */
export function callsAnotherFile(text: string): boolean {
  return text.startsWith('./') || text.startsWith('../');
}

/** The key of a task across files. */
export function taskKey(reference: TaskReference): string {
  return `${reference.file}#${reference.task ?? ''}`;
}

/**
 * How messages, plans and hooks name a task: its name within the run's file (`build`, or
 * `default task`), `FILE#TASK` (FILE as given, relative to where rho runs) within another.
 */
export function taskLabel(reference: TaskReference, file: string, runFile: string): string {
  if (reference.file === runFile) return reference.task ?? 'the default task';
  return reference.task === undefined ? file : `${file}#${reference.task}`;
}

/** The display path of a file a `uses:` step names: the caller's as given, with the relative path joined. */
export function calledFileDisplay(callerDisplay: string, text: string): string {
  const hash = text.lastIndexOf('#');
  const relative = hash < 0 ? text : text.slice(0, hash);
  return path.join(path.dirname(callerDisplay), relative);
}
