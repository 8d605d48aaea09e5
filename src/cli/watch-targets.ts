import { workflowParseCache } from './cache-places.js';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { isWithin } from '../host/workspace.js';
import { compileGlob } from '../tools/files/glob.js';
import { builtinRegistry } from '../workflow/builtin-registry.js';
import { resolveHostConfig } from '../workflow/launch.js';
import { loadWorkflowFile } from '../workflow/load.js';
import type { CompiledWorkflow } from '../workflow/model.js';
import type { RunChoices } from '../workflow/run-choices.js';

/** Directories a watch never looks into. */
const unwatched: ReadonlySet<string> = new Set(['.git', 'node_modules', '.rho']);

/** What `--watch` watches: the workspace, and which changes in it start a run. */
export interface WatchTargets {
  root: string;
  /** The workflow as checked (valid, its tool modules not imported). */
  workflow: CompiledWorkflow;
  /** Whether chokidar should not even descend into a path. */
  ignored(absolute: string): boolean;
  /** Whether a change to a path starts a run again. */
  triggers(absolute: string): boolean;
}

/**
 * A change triggers a run when it is to a file under some step's `sources:` (or, when no step
 * declares any, anywhere in the workspace), or to the workflow file itself; never to a file a
 * step `generates:`, so a run does not set off the next one, nor to anything in rho's own
 * directories (`privatePaths`: its state and caches, wherever XDG puts them). A file whose tasks
 * `uses:` steps run counts as the workflow file. An invalid workflow throws (`~` in its paths is
 * checked against `homeDirectory`, as a run checks it).
 */
export async function resolveWatchTargets(
  file: string,
  choices: RunChoices,
  cwd: string,
  privatePaths: readonly string[] = [],
  homeDirectory?: string | null,
): Promise<WatchTargets> {
  const { workflow } = await loadWorkflowFile(file, builtinRegistry(), 'skip', {
    task: choices.task,
    workspace: { flag: choices.workspace, cwd },
    ...(homeDirectory !== undefined && { homeDirectory }),
    parseCache: workflowParseCache(process.env),
  });
  const root = resolveHostConfig(workflow, choices, cwd, {}, homeDirectory ?? undefined).root;
  const sources = workflow.steps.flatMap((step) => step.sources ?? []).map(compileGlob);
  const generated = workflow.steps.flatMap((step) => step.generates).map(compileGlob);
  const workflowFile = path.resolve(cwd, file);
  const relative = (absolute: string) => path.relative(root, absolute).split(path.sep).join('/');
  // Changes are reported under the root as named; rho's directories are canonical.
  const canonicalRoot = realpathSync(root);
  const own = privatePaths.flatMap((dir) => [dir, ...(isWithin(canonicalRoot, dir) ? [path.join(root, path.relative(canonicalRoot, dir))] : [])]);
  const ignored = (absolute: string) =>
    own.some((dir) => isWithin(dir, absolute)) ||
    relative(absolute)
      .split('/')
      .some((part) => unwatched.has(part));
  return {
    root,
    workflow,
    ignored,
    triggers(absolute) {
      if (absolute === workflowFile || workflow.calledFiles.includes(absolute)) return true;
      const inside = relative(absolute);
      if (inside.startsWith('..') || ignored(absolute) || generated.some((matches) => matches(inside))) return false;
      return sources.length === 0 || sources.some((matches) => matches(inside));
    },
  };
}
