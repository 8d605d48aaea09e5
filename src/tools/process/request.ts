import type { ProcessRequest, ShellRequest } from '../../host/capability.js';
import { freezeRequest } from '../../host/frozen-request.js';

/** A process request, frozen as the host decides on it (its debug and JSON forms leave out argv and env values). */
export function processRequest(facts: Omit<ProcessRequest, 'class' | 'invocation'>): ProcessRequest {
  return freezeRequest({ class: 'process', invocation: 'direct', ...facts }) as ProcessRequest;
}

/** A shell request, frozen as the host decides on it (its debug and JSON forms leave out the script, argv and env values). */
export function shellRequest(facts: Omit<ShellRequest, 'class' | 'invocation'>): ShellRequest {
  return freezeRequest({ class: 'shell', invocation: 'shell', ...facts }) as ShellRequest;
}
