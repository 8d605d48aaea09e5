import path from 'node:path';
import { repetitions, rhoCommand, type BenchContext } from '../lib/context.js';
import { repoRoot } from '../lib/environment.js';
import type { SuiteResult } from '../lib/figures.js';
import { measureWithLoad, medianOf } from '../lib/hyperfine.js';
import { formatNumber } from '../lib/stats.js';
import { writeEchoWorkflow, writeMcpWorkflow } from '../lib/workflows.js';

/**
 * MCP: what one stdio server adds to a run, against the same one-step workflow without it.
 * Declared but never called, the server starts beside the step and is stopped at the end, so
 * only its stop should show; called once, its start-up lies on the path to that step.
 */
export async function mcpSuite(context: BenchContext): Promise<SuiteResult> {
  const server = path.join(repoRoot, 'workflows/mcp/scratchpad-server.mjs');
  const plain = await writeEchoWorkflow(context.dir, 1);
  const unused = await writeMcpWorkflow(context.dir, server, false);
  const called = await writeMcpWorkflow(context.dir, server, true);
  const names = { plain: 'rho run, one echo step', unused: 'with one stdio server, never called', called: 'with one stdio server, one tool call' };
  const commands = [
    { name: names.plain, command: rhoCommand(`run ${plain} --output plain`) },
    { name: names.unused, command: rhoCommand(`run ${unused} --output plain`) },
    { name: names.called, command: rhoCommand(`run ${called} --output plain`) },
  ];
  const raw = await measureWithLoad(commands, { ...repetitions(context, { runs: 10, rounds: 3 }), cwd: context.dir });
  const median = (name: string) => medianOf(raw.measurements, name);
  const added = (name: string) => ({
    suite: 'mcp',
    name: `${name}: added wall time`,
    value: median(name) - median(names.plain),
    unit: 'ms',
    basis: `${formatNumber(median(name))} ms − ${formatNumber(median(names.plain))} ms`,
  });
  return { suite: 'mcp', figures: [added(names.unused), added(names.called)], raw, notes: [] };
}
