import { open, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { repetitions, rhoCommand, type BenchContext } from '../lib/context.js';
import { rhoBin } from '../lib/environment.js';
import type { Figure, SuiteResult } from '../lib/figures.js';
import { measureWithLoad, medianOf } from '../lib/hyperfine.js';
import { peakRssMB } from '../lib/peak-rss.js';
import { formatNumber } from '../lib/stats.js';
import { writeExecWorkflow, writeNodeReader } from '../lib/workflows.js';

const mebibyte = 1024 * 1024;

/** `mib` MiB of 100-character text lines. */
async function writeTextFile(file: string, mib: number): Promise<void> {
  const line = `${'0123456789'.repeat(9)}abcdefghi\n`;
  const chunk = Buffer.from(line.repeat(Math.ceil(mebibyte / line.length))).subarray(0, mebibyte);
  const handle = await open(file, 'w');
  try {
    for (let written = 0; written < mib; written++) await handle.write(chunk);
  } finally {
    await handle.close();
  }
}

/**
 * Output: one step printing a large file (`cat` through the exec tool) against `cat` of the
 * same bytes. Both are compared by the marginal cost of the bytes (large file − empty file), so
 * rho's start-up does not count against it; memory is rho's peak RSS at both sizes.
 */
export async function outputSuite(context: BenchContext): Promise<SuiteResult> {
  const mib = context.quick ? 10 : 100;
  const tenth = mib / 10;
  const big = path.join(context.dir, `text-${mib}mib.txt`);
  const empty = path.join(context.dir, 'empty.txt');
  const small = path.join(context.dir, `text-${tenth}mib.txt`);
  await writeTextFile(big, mib);
  await writeTextFile(small, tenth);
  await writeFile(empty, '');
  const catBig = await writeExecWorkflow(context.dir, `cat-${mib}mib`, 1, 'cat', [big]);
  const catEmpty = await writeExecWorkflow(context.dir, 'cat-empty', 1, 'cat', [empty]);
  const catSmall = await writeExecWorkflow(context.dir, `cat-${tenth}mib`, 1, 'cat', [small]);
  const modes = ['plain', 'fancy'] as const;
  const commands = [
    { name: `cat ${mib} MiB`, command: `cat ${big}` },
    { name: 'cat empty', command: `cat ${empty}` },
    { name: `node reads cat ${mib} MiB`, command: `node ${await writeNodeReader(context.dir, `${mib}mib`, 'cat', [big])}` },
    { name: 'node reads cat empty', command: `node ${await writeNodeReader(context.dir, 'empty', 'cat', [empty])}` },
    ...modes.flatMap((mode) => [
      { name: `rho ${mode}: ${mib} MiB step`, command: rhoCommand(`run ${catBig} --output ${mode}`) },
      { name: `rho ${mode}: empty step`, command: rhoCommand(`run ${catEmpty} --output ${mode}`) },
    ]),
  ];
  const raw = await measureWithLoad(commands, { ...repetitions(context, { runs: 3, rounds: 3 }), output: 'pipe', cwd: context.dir });
  const catBytes = medianOf(raw.measurements, `cat ${mib} MiB`) - medianOf(raw.measurements, 'cat empty');
  const nodeBytes = medianOf(raw.measurements, `node reads cat ${mib} MiB`) - medianOf(raw.measurements, 'node reads cat empty');
  const figures: Figure[] = [
    {
      suite: 'output',
      name: `plain Node reading ${mib} MiB from a child's pipe ÷ cat's (the floor for any Node runner)`,
      value: nodeBytes / catBytes,
      unit: '×',
      basis: `${formatNumber(nodeBytes)} ms / ${formatNumber(catBytes)} ms`,
    },
  ];
  const rss: Record<string, number> = {};
  for (const mode of modes) {
    const large = medianOf(raw.measurements, `rho ${mode}: ${mib} MiB step`);
    const small = medianOf(raw.measurements, `rho ${mode}: empty step`);
    figures.push({
      suite: 'output',
      name: `rho ${mode}: time for ${mib} MiB of step output ÷ cat's`,
      value: (large - small) / catBytes,
      unit: '×',
      basis: `(${formatNumber(large)} − ${formatNumber(small)}) ms / ${formatNumber(catBytes)} ms`,
      target: { limit: 2, text: '≤ 2' },
    });
    figures.push({
      suite: 'output',
      name: `rho ${mode}: time for ${mib} MiB of step output ÷ plain Node's`,
      value: (large - small) / nodeBytes,
      unit: '×',
      basis: `(${formatNumber(large)} − ${formatNumber(small)}) ms / ${formatNumber(nodeBytes)} ms`,
    });
    const peak = (file: string) => peakRssMB([rhoBin, 'run', file, '--output', mode], { cwd: context.dir, scratch: context.dir });
    const [largeRss, smallRss] = [(rss[`${mode} ${mib} MiB`] = await peak(catBig)), (rss[`${mode} ${tenth} MiB`] = await peak(catSmall))];
    const addedMB = ((mib - tenth) * mebibyte) / 1e6;
    figures.push({
      suite: 'output',
      name: `rho ${mode}: peak RSS added per byte of output added (${tenth} → ${mib} MiB)`,
      value: (largeRss - smallRss) / addedMB,
      unit: '',
      basis: `(${formatNumber(largeRss)} − ${formatNumber(smallRss)}) MB / ${formatNumber(addedMB)} MB`,
      target: { limit: 0.5, text: '≤ 0.5 (bounded: output is not kept)' },
    });
  }
  return { suite: 'output', figures, raw: { ...raw, peakRssMB: rss }, notes: [] };
}
