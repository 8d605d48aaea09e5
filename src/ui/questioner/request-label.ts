import type { HostInputRequest } from '../../host/host-input.js';

/** Who is asking, as messages name it: the step, or the tool and call outside a workflow. */
export function askedBy(request: HostInputRequest): string {
  return request.stepId ? `step ${request.stepId}` : `${request.tool} (call ${request.callId})`;
}
