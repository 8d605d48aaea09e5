import path from 'node:path';
import { ToolError, type PartialOutput } from '../../host/errors.js';
import { isWithin } from '../../host/workspace.js';
import type { UndoneWrite } from './sandbox/undone-writes.js';

/** How many undone paths a denial names before it counts the rest. */
const namedPaths = 10;

/** A path as a rule would name it: relative to the workspace root inside it, else absolute. */
function ruleText(absolute: string, workspaceRoot: string | undefined): string {
  return workspaceRoot !== undefined && isWithin(workspaceRoot, absolute) ? path.relative(workspaceRoot, absolute) || '.' : absolute;
}

function describe(write: UndoneWrite, workspaceRoot: string | undefined): string {
  const shown = ruleText(write.path, workspaceRoot);
  const what = write.change === 'permissions' ? `changed the permissions of ${shown}` : `${write.change} ${shown}`;
  const protectedNote = write.runs ? `, a protected place (${write.runs})` : '';
  const outcome = write.undone ? (write.change === 'created' ? 'removed' : 'put back') : 'left as it is: rho could not undo it';
  return `${what}${protectedNote} (${outcome})`;
}

/**
 * The denial of a step whose process wrote outside its write rules (the sandbox has undone it):
 * which paths, what became of them, and the rule that would grant each.
 */
export function undoneWritesDenial(label: string, undone: readonly UndoneWrite[], workspaceRoot: string, details: Record<string, unknown>, output: PartialOutput): ToolError {
  const grants = [...new Set(undone.filter((write) => write.change === 'created').map((write) => `--allow 'write(${ruleText(write.path, workspaceRoot)})'`))];
  const fix = grants.length > 0 ? `; if the step should write there, grant it with a rule that names it: ${grants.slice(0, 3).join(', ')}` : '';
  return new ToolError('policy_denied', `${label} wrote outside what its write rules grant, and was denied: ${describeUndoneWrites(undone, workspaceRoot)}${fix}`, {
    details: { ...details, undone_writes: undone.map((write) => ({ path: write.path, change: write.change, undone: write.undone })) },
    output,
  });
}

/** What a process did outside its write rules and what became of it, one clause each (paths relative to `workspaceRoot` when given). */
export function describeUndoneWrites(undone: readonly UndoneWrite[], workspaceRoot?: string): string {
  const listed = undone.slice(0, namedPaths).map((write) => describe(write, workspaceRoot));
  return `${listed.join('; ')}${undone.length > namedPaths ? `; and ${undone.length - namedPaths} more` : ''}`;
}
