import { describe, expect, it } from 'vitest';
import { benchUsage, parseBenchArguments } from '../../bench/lib/arguments.js';
import { HostError } from '../../src/host/errors.js';
import { exitCodeOfError, exitCodes } from '../../src/host/exit-codes.js';

const suites = ['policy', 'start-up', 'step gaps', 'scripts'];
const parse = (argv: readonly string[], env: Record<string, string> = {}) => parseBenchArguments(argv, suites, env);

/** The usage error `argv` is refused with, which ends the bench with exit 2 before anything is measured. */
function refusal(argv: readonly string[]): string {
  try {
    parse(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(HostError);
    expect(exitCodeOfError(error as HostError)).toBe(exitCodes.usage);
    return (error as HostError).message;
  }
  return expect.fail(`${argv.join(' ')} was accepted`);
}

describe('bench arguments', () => {
  it('run every suite in full mode when none are given', () => {
    expect(parse([])).toEqual({ kind: 'run', quick: false, only: undefined });
  });

  it('take --quick, or BENCH_QUICK=1 or true', () => {
    expect(parse(['--quick'])).toMatchObject({ quick: true });
    expect(parse([], { BENCH_QUICK: '1' })).toMatchObject({ quick: true });
    expect(parse([], { BENCH_QUICK: 'true' })).toMatchObject({ quick: true });
    expect(parse([], { BENCH_QUICK: '0' })).toMatchObject({ quick: false });
  });

  it('take --only LIST and --only=LIST, names with spaces and around commas included', () => {
    expect(parse(['--only', 'step gaps, policy', '--quick'])).toEqual({ kind: 'run', quick: true, only: ['step gaps', 'policy'] });
    expect(parse(['--only=scripts'])).toEqual({ kind: 'run', quick: false, only: ['scripts'] });
  });

  it('answer --help and -h with the usage, naming every suite, whatever else is given', () => {
    expect(parse(['--help'])).toEqual({ kind: 'help' });
    expect(parse(['--quick', '-h'])).toEqual({ kind: 'help' });
    expect(parse(['--bogus', '--help'])).toEqual({ kind: 'help' });
    for (const suite of suites) expect(benchUsage(suites)).toContain(suite);
  });

  it('refuse an unknown argument instead of running the whole bench', () => {
    expect(refusal(['--quik'])).toBe('unknown argument "--quik"');
    expect(refusal(['scripts'])).toBe('unknown argument "scripts"');
    expect(refusal(['--only', 'policy', 'extra'])).toBe('unknown argument "extra"');
  });

  it('refuse an unknown suite, naming the known ones', () => {
    expect(refusal(['--only', 'policy,polcy'])).toBe('unknown suite "polcy"; the suites: policy, start-up, step gaps, scripts');
  });

  it('refuse --only without a list, with an empty name, or given twice, and --quick twice', () => {
    expect(refusal(['--only'])).toMatch(/--only needs a comma-separated list/);
    expect(refusal(['--only', '--quick'])).toMatch(/--only needs a comma-separated list/);
    expect(refusal(['--only', 'policy,'])).toMatch(/empty suite name/);
    expect(refusal(['--only', 'policy', '--only', 'scripts'])).toMatch(/--only is given twice/);
    expect(refusal(['--quick', '--quick'])).toBe('--quick is given twice');
  });
});
