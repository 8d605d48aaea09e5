import { workflowParseCache } from './cache-places.js';
import path from 'node:path';
import { findWorkflowFile, isRegularFile, noWorkflowFound } from '../workflow/discover.js';
import { WorkflowSource } from '../workflow/source.js';

/** What the positional words of `rho run`, `rho plan` or `rho list` name. */
export interface RunTarget {
  /** The workflow file, as messages show it (found ones relative to where rho was started). */
  file: string;
  /** Whether the command line named the file (else it was found by searching upward). */
  named: boolean;
  /** The task, as typed (a name or an alias); undefined for the default task. */
  task: string | undefined;
  /** The words after the task: its parameters and `NAME=VALUE` inputs. */
  arguments: string[];
}

/** A word that sets an input (`name=value`) rather than naming a task. */
const assignment = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** A word that can only be meant as a path: it has a directory part or a YAML extension. */
function looksLikePath(word: string): boolean {
  return word.includes('/') || word.includes(path.sep) || /\.ya?ml$/i.test(word);
}

/**
 * Reads `rho run [FILE] [TASK] [ARG...]` as `just` reads its command line. Without a FILE, the
 * workflow is `rho.yml` (or `rho.yaml`) here or in the nearest directory above. A first word
 * that is a task (or alias) of that file runs it — even when a file of that name exists here,
 * which `./NAME` still names —, one that looks like a path or is a file names the workflow, and
 * `NAME=VALUE` sets an input of the default task. `withTask: false` (`rho list`, `rho validate`)
 * takes FILEs only, and finds one when none is named.
 */
export async function resolveRunTarget(words: readonly string[], cwd: string, withTask = true): Promise<RunTarget> {
  const [first, ...rest] = words;
  const named = (file: string, after: readonly string[]): RunTarget => {
    const [task, ...args] = after;
    if (!withTask || task === undefined || assignment.test(task)) return { file, named: true, task: undefined, arguments: [...after] };
    return { file, named: true, task, arguments: args };
  };
  if (first !== undefined && (looksLikePath(first) || !withTask)) return named(first, rest);
  const found = await findWorkflowFile(cwd);
  const display = (file: string) => path.relative(cwd, file) || path.basename(file);
  if (first === undefined) {
    if (found === undefined) throw noWorkflowFound(cwd);
    return { file: display(found), named: false, task: undefined, arguments: [] };
  }
  if (found !== undefined && (await namesTask(found, first))) return { file: display(found), named: false, task: first, arguments: rest };
  if (await isRegularFile(path.resolve(cwd, first))) return named(first, rest);
  if (found === undefined) throw noWorkflowFound(cwd, first);
  // Not a task of the file found: the loader says so, with the names it has.
  if (assignment.test(first)) return { file: display(found), named: false, task: undefined, arguments: [...words] };
  return { file: display(found), named: false, task: first, arguments: rest };
}

/** Whether a workflow file, as written, has a task or an alias named `name` (its problems are the loader's to report). */
async function namesTask(file: string, name: string): Promise<boolean> {
  const { source } = await WorkflowSource.read(file, workflowParseCache(process.env));
  const tasks = (source?.toData() as { tasks?: unknown } | undefined)?.tasks;
  if (tasks === null || typeof tasks !== 'object' || Array.isArray(tasks)) return false;
  if (Object.hasOwn(tasks, name)) return true;
  return Object.values(tasks as Record<string, unknown>).some((task) => {
    const aliases = (task as { aliases?: unknown } | null)?.aliases;
    return Array.isArray(aliases) && aliases.includes(name);
  });
}
