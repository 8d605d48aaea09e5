import path from 'node:path';
import { repoRoot } from './environment.js';

/** What every suite gets from the runner. */
export interface BenchContext {
  /** Small sizes, few runs, targets reported but not enforced. */
  quick: boolean;
  /** Scratch directory for generated workflows and data, removed after the run. */
  dir: string;
  log(line: string): void;
}

/** Runs and rounds for whole-process measurements: enough for stable medians, fewer in quick mode. */
export function repetitions(context: BenchContext, full: { runs: number; rounds: number }) {
  return context.quick ? { runs: 2, rounds: 1, warmup: 1 } : { ...full, warmup: 2 };
}

/** `node <repo>/bin/run.cjs …` as one command line. */
export function rhoCommand(args: string): string {
  return `node ${path.join(repoRoot, 'bin', 'run.cjs')} ${args}`;
}

export const concurrentlyBin = path.join(repoRoot, 'node_modules', '.bin', 'concurrently');
