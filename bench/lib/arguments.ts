import { HostError } from '../../src/host/errors.js';

/** What `bench/run.ts` was asked to do. */
export type BenchRequest = { kind: 'help' } | { kind: 'run'; quick: boolean; only: readonly string[] | undefined };

/** What a usage error ends with. */
export const benchUsageHint = 'Run `npx tsx bench/run.ts --help` for the usage; nothing was measured.';

/** The usage `--help` prints. */
export function benchUsage(suiteNames: readonly string[]): string {
  return [
    'usage: npm run bench -- [--quick] [--only SUITE[,SUITE...]]',
    '       npx tsx bench/run.ts [--quick] [--only SUITE[,SUITE...]]   (after npm run build)',
    '',
    '  --quick        small sizes, few runs, targets shown but not enforced (also BENCH_QUICK=1)',
    '  --only LIST    run only these suites, comma-separated (quote names with spaces)',
    '  -h, --help     print this and run nothing',
    '',
    `suites: ${suiteNames.join(', ')}`,
    'Results go to bench/results/; see bench/README.md.',
    '',
  ].join('\n');
}

/**
 * Reads the bench's arguments strictly: an argument it does not know, a flag given twice,
 * `--only` without a list or naming a suite that does not exist is a usage error, so a typo
 * never starts the whole bench on a shared machine.
 */
export function parseBenchArguments(argv: readonly string[], suiteNames: readonly string[], env: Readonly<Record<string, string | undefined>>): BenchRequest {
  if (argv.includes('--help') || argv.includes('-h')) return { kind: 'help' };
  let quick = false;
  let only: string[] | undefined;
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    if (argument === '--quick') {
      if (quick) throw new HostError('usage', '--quick is given twice');
      quick = true;
    } else if (argument === '--only' || argument.startsWith('--only=')) {
      if (only) throw new HostError('usage', '--only is given twice: name every suite in one comma-separated list');
      const list = argument === '--only' ? argv[++index] : argument.slice('--only='.length);
      if (list === undefined || list.startsWith('-')) throw new HostError('usage', '--only needs a comma-separated list of suites');
      only = suiteList(list, suiteNames);
    } else {
      throw new HostError('usage', `unknown argument ${JSON.stringify(argument)}`);
    }
  }
  return { kind: 'run', quick: quick || ['1', 'true'].includes(env['BENCH_QUICK'] ?? ''), only };
}

function suiteList(list: string, suiteNames: readonly string[]): string[] {
  const names = list.split(',').map((name) => name.trim());
  if (names.some((name) => name === '')) throw new HostError('usage', `--only ${JSON.stringify(list)} has an empty suite name`);
  const unknown = names.filter((name) => !suiteNames.includes(name));
  if (unknown.length > 0) {
    const named = unknown.map((name) => JSON.stringify(name)).join(', ');
    throw new HostError('usage', `unknown suite${unknown.length === 1 ? '' : 's'} ${named}; the suites: ${suiteNames.join(', ')}`);
  }
  return names;
}
