import type { ToolError } from '../host/errors.js';

/**
 * A host's refusal of a step's call in a workflow's words: the host names its options
 * (`detached`, the order of calls), a workflow names the step's keys (`async:`, `needs:`).
 */
export function stepErrorMessage(stepId: string, error: ToolError): string {
  const reason = typeof error.details.reason === 'string' ? error.details.reason : undefined;
  if (reason === undefined) return error.message;
  switch (error.details.refusal) {
    case 'detached':
      return `step ${stepId} cannot run detached: ${reason}; remove \`async: true\` from the step`;
    case 'changed_after_wait':
      return `step ${stepId}: what it touches resolved differently after the earlier steps it waited for; make it depend on them with needs:`;
    default:
      return error.message;
  }
}
