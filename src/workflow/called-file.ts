import type { Problem } from './problems.js';
import type { WorkflowFile } from './schema.js';
import type { WorkflowSource } from './source.js';

/**
 * What a file may hold when another file's `uses:` step runs one of its tasks. A called file
 * never gains authority: its tasks run under the calling run's policy, hooks, approvals, tools,
 * environment and secrets. Its `policy:` may only add `deny` and `ask` rules (they join the
 * run's policy, its ask rules asking only what the run allows); anything that would grant, run code or bring values in is refused rather than
 * ignored, so nobody reads a called file believing it does what it says.
 */
const refusedKeys: Readonly<Partial<Record<keyof WorkflowFile, string>>> = {
  hooks: 'hook programs are the calling run’s',
  tools: 'tool modules and MCP servers are the calling run’s: declare them in the file that runs',
  env: 'the calling run’s env: applies; pass values as inputs, under with:',
  env_file: 'the calling run’s env files apply; pass values as inputs, under with:',
  host_env: 'host variables reach a run only through the file that runs',
  secrets: 'secrets reach a run only through the file that runs: pass what the task needs as an input',
  workspace: 'the calling run’s workspace applies',
  max_parallel: 'the calling run decides how many calls run at once',
};

const refusedPolicyKeys = {
  allow: 'an allow rule would grant more than the calling run does',
  granted_roots: 'granted roots would widen what the calling run may touch',
  caches: 'a cache would widen where the calling run’s processes may write',
  process_env: 'the calling run decides what environment processes inherit',
  env: 'the calling run grants the variables processes may be given',
  sandbox: 'the calling run decides whether processes are confined',
} as const;

/** Everything a called file sets that it may not, each naming the file and the key or rule. */
export function calledFileProblems(source: WorkflowSource, file: WorkflowFile): Problem[] {
  const problems: Problem[] = [];
  const report = (nodePath: readonly PropertyKey[], message: string) => problems.push({ file: source.file, ...source.position(nodePath, { key: true }), message });
  for (const [key, why] of Object.entries(refusedKeys)) {
    if (file[key as keyof WorkflowFile] !== undefined) report([key], `${source.file} is called by a uses: step and cannot set ${key}: (${why})`);
  }
  for (const [key, why] of Object.entries(refusedPolicyKeys)) {
    const value = file.policy?.[key as keyof typeof refusedPolicyKeys];
    if (value === undefined) continue;
    if (key === 'allow' && Array.isArray(value)) {
      for (const [index, rule] of value.entries())
        report(['policy', 'allow', index], `${source.file} is called by a uses: step and cannot allow "${rule}": ${why}; a called file may only add deny and ask rules`);
    } else {
      report(['policy', key], `${source.file} is called by a uses: step and cannot set policy.${key} (${why}); a called file may only add deny and ask rules`);
    }
  }
  return problems;
}
