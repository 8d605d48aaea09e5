import { concurrentlyBin, repetitions, rhoCommand, type BenchContext } from '../lib/context.js';
import type { Figure, SuiteResult } from '../lib/figures.js';
import { measureWithLoad, medianOf, type Command } from '../lib/hyperfine.js';
import { formatNumber, marginal } from '../lib/stats.js';
import { writeExecaSpawnLoop, writeExecWorkflow, writeMakefile, writeNodeLoop, writeNodeSpawnLoop, writeZxScript } from '../lib/workflows.js';

/**
 * Process steps: `true` run N times in sequence by each tool. The figure is the marginal cost
 * per process, (time at N − time at 1) / (N − 1), so each tool's own start-up cancels out.
 */
export async function processesSuite(context: BenchContext): Promise<SuiteResult> {
  const large = context.quick ? 10 : 200;
  const tools: { tool: string; at: (count: number) => Promise<string> }[] = [
    { tool: 'make', at: async (count) => `make -s -f ${await writeMakefile(context.dir, 'true', count, 'true')}` },
    { tool: 'bash loop', at: async (count) => `bash -c 'for i in $(seq ${count}); do /bin/true; done'` },
    { tool: 'node child_process loop', at: async (count) => `node ${await writeNodeLoop(context.dir, 'true', count, 'true')}` },
    { tool: 'node spawn loop (pipes read)', at: async (count) => `node ${await writeNodeSpawnLoop(context.dir, 'true', count, 'true')}` },
    // execa alone, exactly as rho calls it: the floor for any runner that starts processes through execa.
    { tool: 'node loop through execa as rho configures it', at: async (count) => `node ${await writeExecaSpawnLoop(context.dir, 'true', count, 'true')}` },
    { tool: 'zx', at: async (count) => `node ${await writeZxScript(context.dir, 'true', count, 'true')}` },
    { tool: 'concurrently', at: async (count) => `${concurrentlyBin} --raw -m 1 ${Array(count).fill('true').join(' ')}` },
    { tool: 'rho (exec true)', at: async (count) => rhoCommand(`run ${await writeExecWorkflow(context.dir, 'true', count, 'true', [])} --output plain --sandbox off`) },
  ];
  const commands: Command[] = [];
  for (const { tool, at } of tools) {
    commands.push({ name: `${tool} ×1`, command: await at(1) }, { name: `${tool} ×${large}`, command: await at(large) });
  }
  const raw = await measureWithLoad(commands, { ...repetitions(context, { runs: 3, rounds: 3 }), cwd: context.dir });
  const marginalOf = (tool: string) =>
    marginal({ size: 1, time: medianOf(raw.measurements, `${tool} ×1`) }, { size: large, time: medianOf(raw.measurements, `${tool} ×${large}`) });
  const figures: Figure[] = tools.map(({ tool }) => {
    const one = medianOf(raw.measurements, `${tool} ×1`);
    const many = medianOf(raw.measurements, `${tool} ×${large}`);
    const isRho = tool.startsWith('rho');
    return {
      suite: 'processes',
      name: `${tool}: marginal cost per process (1 → ${large} sequential)`,
      value: marginal({ size: 1, time: one }, { size: large, time: many }),
      unit: 'ms/step',
      basis: `${formatNumber(many)} ms − ${formatNumber(one)} ms`,
      ...(isRho && { target: { limit: 2.5, text: '≤ 2.5 ms' } }),
    };
  });
  // On a loaded machine every spawn slows down alike; the ratio to a plain Node loop in the same rounds shows rho's own share.
  const rho = marginalOf('rho (exec true)');
  const floors = [
    { tool: 'node child_process loop', name: 'plain Node child_process loop', how: ' (spawnSync, output inherited)' },
    // The floor the issue names: an asynchronous spawn that reads both pipes, as rho must to keep a step's output.
    { tool: 'node spawn loop (pipes read)', name: 'plain Node spawn loop (pipes read)', how: '', target: { limit: 1.5, text: '≤ 1.5 ×' } },
  ];
  for (const { tool, name, how, target } of floors) {
    const floor = marginalOf(tool);
    figures.push({
      suite: 'processes',
      name: `rho marginal cost ÷ ${name}`,
      value: rho / floor,
      unit: '×',
      basis: `${formatNumber(rho)} ms / ${formatNumber(floor)} ms per process${how}`,
      ...(target && { target }),
    });
  }
  const spawnLoop = marginalOf('node spawn loop (pipes read)');
  const execaLoop = marginalOf('node loop through execa as rho configures it');
  figures.push(
    {
      suite: 'processes',
      name: 'execa as rho configures it ÷ plain Node spawn loop (pipes read)',
      value: execaLoop / spawnLoop,
      unit: '×',
      basis: `${formatNumber(execaLoop)} ms / ${formatNumber(spawnLoop)} ms per process: execa's own share, before any of rho's work`,
    },
    {
      suite: 'processes',
      name: 'rho marginal cost ÷ the loop through execa',
      value: rho / execaLoop,
      unit: '×',
      basis: `${formatNumber(rho)} ms / ${formatNumber(execaLoop)} ms per process: rho's host, runner, renderer, the file's parse and its larger fork`,
    },
  );
  return { suite: 'processes', figures, raw, notes: [] };
}
