import { HostError } from '../host/errors.js';

/** One thing wrong with a workflow file, located for `FILE:LINE:COL: message`. */
export interface Problem {
  file: string;
  line: number;
  col: number;
  message: string;
}

export function formatProblem(problem: Problem): string {
  return `${problem.file}:${problem.line}:${problem.col}: ${problem.message}`;
}

/** A workflow that cannot run; carries every problem found in one pass. */
export class InvalidWorkflowError extends HostError {
  constructor(readonly problems: readonly Problem[]) {
    super('invalid_workflow', problems.map(formatProblem).join('\n'));
  }
}
