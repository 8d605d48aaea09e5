import { createHash } from 'node:crypto';
import path from 'node:path';
import type { OutputLogs } from '../host/step-output.js';
import { userStateDir } from './cache-places.js';

/** Where a run keeps its steps' whole output: the default place for its workspace, a directory given, or nowhere. */
export type LogsChoice = { mode: 'default' } | { mode: 'dir'; dir: string } | { mode: 'off' };

/** How many runs' logs the default place keeps for a workspace; the oldest go first. */
export const keptRuns = 20;
/** How long the default place keeps the logs of a workspace no run has written to since. */
export const keptWorkspaceMs = 30 * 24 * 3600 * 1000;

/**
 * The default place of a workspace's step logs: `logs/NAME-DIGEST` in the user's state
 * directory, one place per workspace root (its name for a reader, a digest of its path to tell
 * two apart). Outside the workspace, so no step's rules or globs ever reach it, and under the
 * home that confined steps do not see.
 */
export function defaultLogPlace(env: Readonly<Record<string, string | undefined>>, workspaceRoot: string): string | undefined {
  const base = userStateDir(env);
  if (base === undefined) return undefined;
  const name =
    path
      .basename(workspaceRoot)
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .replace(/^\.+/, '') || 'root';
  const digest = createHash('sha256').update(workspaceRoot).digest('hex').slice(0, 12);
  return path.join(base, 'logs', `${name}-${digest}`);
}

/**
 * The run's step logs: under `--logs DIR` (which must be writable: a usage error before anything
 * runs), or in the workspace's default place (which, when it cannot be made, only costs a
 * warning: nobody asked for it), or none.
 */
export async function openStepLogs(
  choice: LogsChoice,
  workspaceRoot: string,
  env: Readonly<Record<string, string | undefined>>,
  onFailure: (message: string) => void,
): Promise<OutputLogs | undefined> {
  if (choice.mode === 'off') return undefined;
  const { StepLogFiles, removeStaleLogPlaces } = await import('../ui/reports/step-logs.js');
  if (choice.mode === 'dir') return StepLogFiles.create(path.resolve(choice.dir), { onFailure });
  const place = defaultLogPlace(env, workspaceRoot);
  if (place === undefined) return undefined;
  try {
    const logs = await StepLogFiles.create(place, { keepRuns: keptRuns, onFailure });
    await removeStaleLogPlaces(path.dirname(place), keptWorkspaceMs);
    return logs;
  } catch (error) {
    onFailure(`rho: ${(error as Error).message}`);
    return undefined;
  }
}
