import { ToolError } from '../errors.js';
import { homePathProblem, expandHomePath } from '../home-path.js';
import { normalizePathText } from '../rules.js';
import { isWithin } from '../workspace.js';
import { literalPrefix } from './rule-paths.js';
import type { ConfinementPlan, WritableRoot } from './plan.js';

/**
 * Why a path of `writes:` (a step's, a task's, a file's default) cannot be used, or undefined:
 * a `~` that does not expand to the running user's `home`. Validation refuses the file with it,
 * and a run refuses it again where the file was checked against another home.
 */
export function writesPathProblem(glob: string, home: string | undefined): string | undefined {
  const problem = homePathProblem(glob, home, true);
  return problem && `writes: ${JSON.stringify(glob)}: ${problem}`;
}

/**
 * A plan whose writable roots are cut down to what a step declares it writes (`writes:`,
 * globs as in `write` rules, `~` the running user's `home`): each declared path is kept where a
 * policy root contains it, and a policy root is kept where a declared tree contains it. A step
 * can narrow, never widen: a declared path that no policy root contains is refused. The caches
 * the policy grants stay: they are not the step's own.
 */
export function narrowWritable(plan: ConfinementPlan, declared: readonly string[], workspaceRoot: string, home?: string): ConfinementPlan {
  const writable: WritableRoot[] = [];
  const granted = plan.writable.filter((root) => root.cache === undefined);
  for (const glob of declared) {
    const problem = writesPathProblem(glob, home);
    if (problem) throw new ToolError('invalid_arguments', problem);
    const prefix = literalPrefix(normalizePathText(expandHomePath(glob, home, true)), workspaceRoot);
    const wanted: WritableRoot = { path: prefix.path, kind: prefix.literal ? 'entry' : 'tree' };
    const inside = granted.find((root) => isWithin(root.path, wanted.path) && (root.kind === 'tree' || root.path === wanted.path));
    const contained = wanted.kind === 'tree' ? granted.filter((root) => isWithin(wanted.path, root.path)) : [];
    if (inside) writable.push(inside.kind === 'entry' ? inside : wanted);
    else if (contained.length > 0) writable.push(...contained);
    else {
      const roots = granted.map((root) => root.path).join(', ') || 'nothing';
      throw new ToolError(
        'policy_denied',
        `writes: ${JSON.stringify(glob)} is not inside what the policy's write rules grant to processes (${roots}); a call's writes can only narrow them: grant it first with the allow rule "write(${glob})"`,
      );
    }
  }
  const kept = writable.filter((root, index) => writable.findIndex((other) => other.path === root.path) === index);
  const narrowed = kept.filter((root) => !kept.some((other) => other !== root && other.kind === 'tree' && isWithin(other.path, root.path)));
  return { ...plan, writable: [...narrowed, ...plan.writable.filter((root) => root.cache !== undefined)] };
}
