import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { open, readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { repetitions, rhoCommand, type BenchContext } from '../lib/context.js';
import { benchEnv, rhoBin } from '../lib/environment.js';
import type { Figure, SuiteResult } from '../lib/figures.js';
import { measureWithLoad, medianOf } from '../lib/hyperfine.js';
import { peakRssMB } from '../lib/peak-rss.js';
import { formatNumber } from '../lib/stats.js';
import { writeExecWorkflow, writeNodeReader } from '../lib/workflows.js';

const mebibyte = 1024 * 1024;

/** `mib` MiB of text lines of up to 100 characters. */
async function writeTextFile(file: string, mib: number): Promise<void> {
  const line = `${'0123456789'.repeat(9)}abcdefghi\n`;
  const chunk = Buffer.from(line.repeat(Math.ceil(mebibyte / line.length))).subarray(0, mebibyte);
  // Each mebibyte ends a line, so the file does too.
  chunk[mebibyte - 1] = 0x0a;
  const handle = await open(file, 'w');
  try {
    for (let written = 0; written < mib; written++) await handle.write(chunk);
  } finally {
    await handle.close();
  }
}

/** How rho is run: the output mode, and whether the bound on what a step shows is lifted. */
interface Configuration {
  name: string;
  mode: 'plain' | 'json';
  everyLine: boolean;
}

const configurations: readonly Configuration[] = [
  { name: 'plain', mode: 'plain', everyLine: false },
  { name: 'json', mode: 'json', everyLine: false },
  { name: 'plain, every line shown', mode: 'plain', everyLine: true },
  { name: 'json, every line shown', mode: 'json', everyLine: true },
];

const argsOf = (configuration: Configuration, logs: string) => ['--output', configuration.mode, '--logs', logs, ...(configuration.everyLine ? ['--output-limit', 'none'] : [])];

/** The step's own lines in plain output: `[s1] ` and the text's alphabet (rho's own lines hold other characters). */
const stepLine = /^\[s1\] ([0-9a-i]+)$/;

interface Delivery {
  printed: number;
  shown: number;
  omitted: number;
  logged: number;
}

/**
 * Runs one configuration on the large file once more, outside the timings, and counts where the
 * bytes went: shown on stdout (plain lines, or the messages of NDJSON events), counted as left out
 * (the step_output_omitted event of `--events`), and kept in the step's log.
 */
async function deliveryOf(configuration: Configuration, workflow: string, printed: number, dir: string): Promise<Delivery> {
  const logs = path.join(dir, `delivery-logs-${configuration.mode}-${configuration.everyLine}`);
  const events = path.join(dir, `delivery-events-${configuration.mode}-${configuration.everyLine}.ndjson`);
  const child = spawn(process.execPath, [rhoBin, 'run', workflow, ...argsOf(configuration, logs), '--events', events], {
    cwd: dir,
    env: benchEnv(),
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let shown = 0;
  for await (const line of createInterface({ input: child.stdout, crlfDelay: Infinity })) {
    if (configuration.mode === 'plain') {
      const match = stepLine.exec(line);
      if (match) shown += match[1]!.length + 1;
    } else {
      const event = JSON.parse(line) as { type: string; stream?: string; message?: string };
      if (event.type === 'step_progress' && event.stream === 'stdout') shown += Buffer.byteLength(event.message!) + 1;
    }
  }
  await new Promise((resolve) => child.once('close', resolve));
  let omitted = 0;
  for await (const line of createInterface({ input: createReadStream(events), crlfDelay: Infinity })) {
    if (line.includes('"step_output_omitted"')) omitted = (JSON.parse(line) as { bytes: number }).bytes;
  }
  const [run] = await readdir(logs);
  const logged = (await stat(path.join(logs, run!, 's1.log'))).size;
  await rm(logs, { recursive: true, force: true });
  await rm(events, { force: true });
  return { printed, shown, omitted, logged };
}

/**
 * Output: one step printing a large file (`cat` through the exec tool), shown in plain and JSON
 * output, with its log kept, against `cat` of the same bytes to a file. rho is run as a user
 * would (each step shows its first 10 MiB and counts the rest) and with every line shown
 * (`--output-limit none`). Times compare the marginal cost of the bytes (large file − empty
 * file), so rho's start-up does not count against it; memory is rho's peak RSS at two sizes;
 * and every byte printed is checked to be shown or counted, and kept in the log.
 */
export async function outputSuite(context: BenchContext): Promise<SuiteResult> {
  const mib = context.quick ? 10 : 100;
  const tenth = mib / 10;
  const big = path.join(context.dir, `text-${mib}mib.txt`);
  const empty = path.join(context.dir, 'empty.txt');
  const small = path.join(context.dir, `text-${tenth}mib.txt`);
  const catTarget = path.join(context.dir, 'cat-out.txt');
  const logs = path.join(context.dir, 'output-logs');
  await writeTextFile(big, mib);
  await writeTextFile(small, tenth);
  await writeFile(empty, '');
  const catBig = await writeExecWorkflow(context.dir, `cat-${mib}mib`, 1, 'cat', [big]);
  const catEmpty = await writeExecWorkflow(context.dir, 'cat-empty', 1, 'cat', [empty]);
  const catSmall = await writeExecWorkflow(context.dir, `cat-${tenth}mib`, 1, 'cat', [small]);
  const commands = [
    { name: `cat ${mib} MiB to a file`, command: `bash -c "cat ${big} > ${catTarget}"` },
    { name: 'cat empty to a file', command: `bash -c "cat ${empty} > ${catTarget}"` },
    { name: `node reads cat ${mib} MiB`, command: `node ${await writeNodeReader(context.dir, `${mib}mib`, 'cat', [big])}` },
    { name: 'node reads cat empty', command: `node ${await writeNodeReader(context.dir, 'empty', 'cat', [empty])}` },
    ...configurations.flatMap((configuration) => [
      { name: `rho ${configuration.name}: ${mib} MiB step`, command: rhoCommand(`run ${catBig} ${argsOf(configuration, logs).join(' ')}`) },
      { name: `rho ${configuration.name}: empty step`, command: rhoCommand(`run ${catEmpty} ${argsOf(configuration, logs).join(' ')}`) },
    ]),
  ];
  // Each run's logs are removed before the next (untimed): a 100 MiB log per run would fill the disk.
  const raw = await measureWithLoad(commands, { ...repetitions(context, { runs: 3, rounds: 3 }), output: 'pipe', cwd: context.dir, prepare: `rm -rf ${logs}` });
  await rm(logs, { recursive: true, force: true });
  const catBytes = medianOf(raw.measurements, `cat ${mib} MiB to a file`) - medianOf(raw.measurements, 'cat empty to a file');
  const nodeBytes = medianOf(raw.measurements, `node reads cat ${mib} MiB`) - medianOf(raw.measurements, 'node reads cat empty');
  const figures: Figure[] = [
    {
      suite: 'output',
      name: `plain Node reading ${mib} MiB from a child's pipe ÷ cat's to a file (the floor for any Node runner)`,
      value: nodeBytes / catBytes,
      unit: '×',
      basis: `${formatNumber(nodeBytes)} ms / ${formatNumber(catBytes)} ms`,
    },
  ];
  const rss: Record<string, number> = {};
  const deliveries: Record<string, Delivery> = {};
  for (const configuration of configurations) {
    const large = medianOf(raw.measurements, `rho ${configuration.name}: ${mib} MiB step`);
    const none = medianOf(raw.measurements, `rho ${configuration.name}: empty step`);
    figures.push({
      suite: 'output',
      name: `rho ${configuration.name}: time for ${mib} MiB of step output (shown and logged) ÷ cat's to a file`,
      value: (large - none) / catBytes,
      unit: '×',
      basis: `(${formatNumber(large)} − ${formatNumber(none)}) ms / ${formatNumber(catBytes)} ms`,
      target: { limit: 2, text: '≤ 2' },
    });
    const rssLogs = path.join(context.dir, 'rss-logs');
    const peak = (file: string) => peakRssMB([rhoBin, 'run', file, ...argsOf(configuration, rssLogs)], { cwd: context.dir, scratch: context.dir });
    const [largeRss, smallRss] = [(rss[`${configuration.name} ${mib} MiB`] = await peak(catBig)), (rss[`${configuration.name} ${tenth} MiB`] = await peak(catSmall))];
    await rm(rssLogs, { recursive: true, force: true });
    const addedMB = ((mib - tenth) * mebibyte) / 1e6;
    figures.push({
      suite: 'output',
      name: `rho ${configuration.name}: peak RSS added per byte of output added (${tenth} → ${mib} MiB)`,
      value: (largeRss - smallRss) / addedMB,
      unit: '',
      basis: `(${formatNumber(largeRss)} − ${formatNumber(smallRss)}) MB / ${formatNumber(addedMB)} MB`,
      target: { limit: 0.5, text: '≤ 0.5 (bounded: output is not kept)' },
    });
    const delivery = (deliveries[configuration.name] = await deliveryOf(configuration, catBig, mib * mebibyte, context.dir));
    figures.push({
      suite: 'output',
      name: `rho ${configuration.name}: bytes printed neither shown nor counted as left out, and not in the log`,
      value: Math.abs(delivery.printed - delivery.shown - delivery.omitted) + Math.abs(delivery.printed - delivery.logged),
      unit: 'bytes',
      basis: `printed ${delivery.printed}, shown ${delivery.shown}, counted ${delivery.omitted}, logged ${delivery.logged}`,
      target: { limit: 0, text: '0' },
    });
  }
  return { suite: 'output', figures, raw: { ...raw, peakRssMB: rss, deliveries }, notes: [] };
}
