import { describeUnconfined } from '../../host/confinement/modes.js';
import type { PlannedConfinement, PlannedRequest, WorkflowPlan } from '../../workflow/plan.js';

const decisionLabel = { allow: 'allow', ask: 'ASK (approval)', deny: 'DENY' } as const;

/** The plan as a person reads it: waves, then each step with what it waits on and what it asks for. */
export function formatPlan(plan: WorkflowPlan): string[] {
  const lines = [`Plan for ${plan.workflow} (max_parallel ${plan.maxParallel}); nothing was run.`, hooksLine(plan.hooks)];
  const sandbox = plan.sandbox;
  lines.push(
    sandbox.confined
      ? `Sandbox ${sandbox.mode}: process steps run confined by ${sandbox.backend}${sandbox.location ? ` (${sandbox.location})` : ''}`
      : `Sandbox ${sandbox.mode}: ${describeUnconfined(sandbox)}`,
  );
  lines.push(plan.home === undefined ? 'Home (~): none (this user has no home directory)' : `Home (~): ${plan.home}`);
  if (plan.toolchains.length > 0) {
    lines.push(`Toolchains (readable to confined processes): ${plan.toolchains.map((toolchain) => `${toolchain.name} (${toolchain.paths.join(', ')})`).join('; ')}`);
  }
  if (plan.task) lines.push(`Task ${plan.task.name}, one up-to-date check (its sources:):`, ...upToDateLines(plan.task.upToDate));
  const waves = new Map<number, string[]>();
  for (const step of plan.steps) waves.set(step.wave, [...(waves.get(step.wave) ?? []), step.id]);
  lines.push('', 'Schedule (steps in one wave can run together):');
  for (const [wave, ids] of [...waves].sort((a, b) => a[0] - b[0])) lines.push(`  wave ${wave}: ${ids.join(', ')}`);
  for (const step of plan.steps) {
    const kind = step.cells ? 'matrix' : step.uses ? `uses ${step.uses.task}` : step.tool;
    lines.push('', `${step.id} (${kind}${step.detached ? ', detached' : ''}) — wave ${step.wave}`);
    if (step.condition !== undefined) lines.push(`  if: ${step.condition}${conditionOutcome(step.conditionValue)}`);
    if (step.cells) lines.push(`  cells: ${step.cells.join('; ')}`);
    if (step.uses) lines.push(`  steps: ${step.uses.steps.join('; ')}`);
    lines.push(`  waits for: ${step.waitsFor.length > 0 ? step.waitsFor.join('; ') : 'nothing'}`);
    lines.push(`  resources: ${step.resources}`);
    if (step.confinement) lines.push(...confinementLines(step.confinement));
    if (step.note) lines.push(`  note: ${step.note}`);
    if (step.upToDate) lines.push(...upToDateLines(step.upToDate));
    if (step.preparation === 'prepared' && step.requests.length === 0) lines.push('  requests: none');
    for (const request of step.requests) {
      const because = request.rule ? `rule ${request.rule}` : 'no rule matches';
      const fix = request.decision === 'deny' && !request.rule ? ` — grant with --allow '${request.grant}'` : '';
      lines.push(`  ${decisionLabel[request.decision]}: ${request.description} (${because})${fix}${gateOutcome(request.gates)}`);
    }
  }
  return lines;
}

/** Whether a step or task would be skipped as up to date, and the cache key its outputs are kept under. */
function upToDateLines(upToDate: NonNullable<WorkflowPlan['steps'][number]['upToDate']>): string[] {
  const lines = [`  up to date: ${upToDate.verdict}${upToDate.verdict === 'yes' ? '' : ` — ${upToDate.reason}`}`];
  if (upToDate.cacheKey) lines.push(`  cache key: ${upToDate.cacheKey.hash} (from ${upToDate.cacheKey.inputs.join('; ')})`);
  return lines;
}

/** Protected places a plan names before it counts the rest. */
const shownProtected = 4;

function confinementLines(confinement: PlannedConfinement): string[] {
  const lines = [
    `  confined: ${confinement.confined ? 'yes' : 'no (see Sandbox above)'}`,
    `  writes: ${confinement.writable.length > 0 ? confinement.writable.join(', ') : 'nothing'} (and its private TMPDIR)`,
    ...(confinement.caches.length > 0 ? [`  caches: ${confinement.caches.map((cache) => `${cache.name} (${cache.paths.join(', ')})`).join('; ')}`] : []),
  ];
  if (confinement.checked.length > 0) {
    lines.push(`  checked: ${confinement.checked.join(', ')} (anything else left there is removed and denies the step)`);
  }
  const places = confinement.protected;
  if (places.length > 0) {
    const more = places.length > shownProtected ? `, and ${places.length - shownProtected} more` : '';
    lines.push(`  protected: ${places.slice(0, shownProtected).join(', ')}${more} (read-only, never left created; a rule naming one lifts it)`);
  }
  lines.push(`  network: ${confinement.network}`, `  unix sockets: ${confinement.unixSockets}`);
  if (confinement.refused) lines.push(`  REFUSED when it starts: ${confinement.refused}`);
  return lines;
}

function hooksLine(hooks: WorkflowPlan['hooks']): string {
  if (hooks.consulted) return hooks.gates > 0 ? `Hook gates: consulted (${hooks.gates}) about every request the policy does not deny.` : 'Hook gates: none declared.';
  if (hooks.gates === 0) return 'Hook gates: not consulted (the policy alone decides below; --hooks FILE consults gates).';
  return `Hook gates: not consulted (the workflow declares ${hooks.gates}; the policy alone decides below, and --hooks FILE consults them).`;
}

function conditionOutcome(value: boolean | undefined): string {
  if (value === undefined) return ' (decided at run time)';
  return value ? ' → true with these inputs' : ' → false with these inputs: the step would be skipped';
}

function gateOutcome(gates: PlannedRequest['gates']): string {
  if (!gates) return '';
  return gates.decision === 'continue' ? '; hook gates: continue' : `; DENIED by hook ${gates.hook}: ${gates.reason}`;
}
