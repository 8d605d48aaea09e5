import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CapabilityRequest } from '../../src/host/capability.js';
import { Policy } from '../../src/host/policy.js';
import { parseRule } from '../../src/host/rules.js';
import { Workspace } from '../../src/host/workspace.js';
import type { SuiteResult } from '../lib/figures.js';
import { pick, seededRandom } from '../lib/random.js';
import { formatNumber } from '../lib/stats.js';
import { medianTimes } from '../lib/tiny.js';

export interface PolicySizes {
  requests: number;
  /** Rule counts compared; the last is ten times the first. */
  rules: readonly [number, number];
  iterations: number;
}

export const policySizes = { full: { requests: 10_000, rules: [100, 1_000], iterations: 10 }, quick: { requests: 200, rules: [10, 100], iterations: 2 } } satisfies Record<
  string,
  PolicySizes
>;

const directories = 20;
const filesPerDirectory = 10;

/** Rules of every class that takes an argument: 80% allow, 10% ask, 10% deny. */
function makeRules(count: number, random: () => number) {
  const rules = { allow: [] as string[], ask: [] as string[], deny: [] as string[] };
  for (let index = 0; index < count; index++) {
    const directory = `d${Math.floor(random() * directories * 2)}`;
    const text = pick(random, [
      `read(${directory}/**)`,
      `write(${directory}/*.txt)`,
      `read(${directory}/f${Math.floor(random() * filesPerDirectory)}.txt)`,
      `process(tool${index} --flag)`,
      `network(host${index}.example:8443)`,
    ]);
    const roll = random();
    (roll < 0.8 ? rules.allow : roll < 0.9 ? rules.ask : rules.deny).push(text);
  }
  const parse = (texts: string[]) => texts.map((text) => parseRule(text));
  return { allow: parse(rules.allow), ask: parse(rules.ask), deny: parse(rules.deny) };
}

async function makeRequests(workspace: Workspace, root: string, count: number, random: () => number): Promise<CapabilityRequest[]> {
  const paths = [];
  for (let d = 0; d < directories; d++) {
    for (let f = 0; f < filesPerDirectory; f++) {
      const relative = `d${d}/f${f}.txt`;
      paths.push({ read: await workspace.resolveForRead(relative), write: await workspace.resolveForWrite(relative) });
    }
  }
  const requests: CapabilityRequest[] = [];
  for (let index = 0; index < count; index++) {
    const roll = random();
    const target = pick(random, paths);
    if (roll < 0.4) requests.push({ class: 'read', path: target.read, target: 'file' });
    else if (roll < 0.7) requests.push({ class: 'write', path: target.write });
    else if (roll < 0.85) {
      const tool = `tool${Math.floor(random() * 2000)}`;
      requests.push({
        class: 'process',
        invocation: 'direct',
        cwd: root,
        executable: { requested: tool, resolved: `/usr/bin/${tool}`, lookup: 'path_search' },
        argv: ['--flag'],
        envMode: { mode: 'inherit' },
        env: {},
        outputLimitBytes: 1 << 20,
        wallLimitMs: 60_000,
      });
    } else {
      const hostname = `host${Math.floor(random() * 2000)}.example`;
      const host = `${hostname}:8443`;
      requests.push({ class: 'network', method: 'GET', scheme: 'https', host, hostname, port: 8443, url: `https://${host}/` });
    }
  }
  return requests;
}

/**
 * Policy evaluation: the same requests against R and 10 × R rules. Evaluation walks the rule
 * lists in order (deny, ask, allow; globs compiled once and cached), so its cost is
 * O(requests × rules): ten times the rules must cost at most eleven times the time.
 */
export async function policySuite(sizes: PolicySizes): Promise<SuiteResult> {
  const root = await mkdtemp(path.join(tmpdir(), 'rhobench-policy-'));
  try {
    for (let d = 0; d < directories; d++) {
      await mkdir(path.join(root, `d${d}`));
      for (let f = 0; f < filesPerDirectory; f++) await writeFile(path.join(root, `d${d}`, `f${f}.txt`), '');
    }
    const workspace = await Workspace.create(root);
    const random = seededRandom(42);
    const requests = await makeRequests(workspace, workspace.root, sizes.requests, random);
    const [few, many] = sizes.rules;
    const policies = { [few]: new Policy(makeRules(few, random)), [many]: new Policy(makeRules(many, random)) };
    const decisions = { allow: 0, ask: 0, deny: 0 };
    const evaluateAll = (policy: Policy) => () => {
      for (const request of requests) decisions[policy.evaluate(request, workspace.root).decision]++;
    };
    const times = await medianTimes({ [`${few} rules`]: evaluateAll(policies[few]!), [`${many} rules`]: evaluateAll(policies[many]!) }, sizes.iterations);
    const small = times[`${few} rules`]!;
    const large = times[`${many} rules`]!;
    return {
      suite: 'policy',
      figures: [
        {
          suite: 'policy',
          name: `${many} ÷ ${few} rules, ${sizes.requests} requests (10 × size)`,
          value: large / small,
          unit: '×',
          basis: `${formatNumber(large)} ms / ${formatNumber(small)} ms`,
          target: { limit: 11, text: '≤ 11' },
        },
        {
          suite: 'policy',
          name: `cost per request at ${many} rules`,
          value: (large / sizes.requests) * 1000,
          unit: 'µs',
          basis: `${formatNumber(large)} ms / ${sizes.requests} requests`,
        },
        {
          suite: 'policy',
          name: 'marginal cost per rule per request',
          value: ((large - small) / (many - few) / sizes.requests) * 1e6,
          unit: 'ns',
          basis: `(${formatNumber(large)} − ${formatNumber(small)}) ms / ${many - few} rules / ${sizes.requests} requests`,
        },
      ],
      raw: { sizes, medianMs: times, decisions },
      notes: [],
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
