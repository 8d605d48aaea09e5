import type { ToolRegistry } from '../../host/registry.js';
import { compileWorkflow } from '../compile.js';
import type { CompiledStep, CompiledWorkflow } from '../model.js';
import { formatProblem, type Problem } from '../problems.js';

/**
 * Checks the steps that call one server's tools, once it runs and its tools are registered: a
 * step naming a tool the server does not offer (with the closest names), or giving it arguments
 * its schema refuses. The other servers' steps are left for their own check.
 */
export function serverStepProblems(workflow: CompiledWorkflow, tools: ToolRegistry, server: string, servers: readonly string[]): Problem[] {
  const others = servers.filter((name) => name !== server);
  return compileWorkflow(workflow.source, tools, { pendingServers: others }).problems;
}

/**
 * The steps a problem lies in. It lies in the run's file: a step of another file (a task a
 * uses: step runs) is not where it is, and every step that step became (in each group that uses
 * its task) is.
 */
export function stepsOf(steps: readonly CompiledStep[], problem: Problem): CompiledStep[] {
  const own = steps.filter((step) => step.file === undefined);
  let line: number | undefined;
  for (const step of own) if (step.line <= problem.line && (line === undefined || step.line > line)) line = step.line;
  return own.filter((step) => step.line === line);
}

/**
 * Steps refused by a problem found while the run goes on (once a server's tools are known): the
 * runner fails such a step instead of running it. A problem belongs to the step it lies in.
 */
export class RefusedSteps {
  private readonly problems = new Map<string, string>();

  refuse(steps: readonly CompiledStep[], problem: Problem): void {
    for (const step of stepsOf(steps, problem)) if (!this.problems.has(step.id)) this.problems.set(step.id, formatProblem(problem));
  }

  /** Why the step may not run, or undefined. */
  problemOf(stepId: string): string | undefined {
    return this.problems.get(stepId);
  }
}
