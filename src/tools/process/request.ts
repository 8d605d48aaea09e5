import { inspect } from 'node:util';
import type { ProcessRequest, ShellRequest } from '../../host/capability.js';

/**
 * Makes a request's debug form (`util.inspect`, `console.log`) leave out the argv, the shell
 * text and the environment's values, which may hold secrets. The facts stay plain enumerable fields,
 * so policy, hooks, approvals and fingerprints read them as before, and a display that means to
 * show the command reads `request.argv` / `request.script` by name (`describeRequest` does).
 */
function redactDebugForm<R extends ProcessRequest | ShellRequest>(request: R): R {
  Object.defineProperty(request, inspect.custom, {
    enumerable: false,
    value: () => {
      const { argv, env, ...facts } = request;
      const redacted = { ...facts, argv: `[${argv.length} argument(s) redacted]`, env: Object.keys(env).map((name) => `${name}=[redacted]`) };
      return request.class === 'shell' ? { ...redacted, script: `[${request.script.length} characters redacted]` } : redacted;
    },
  });
  return request;
}

export function processRequest(facts: Omit<ProcessRequest, 'class' | 'invocation'>): ProcessRequest {
  return redactDebugForm({ class: 'process', invocation: 'direct', ...facts });
}

export function shellRequest(facts: Omit<ShellRequest, 'class' | 'invocation'>): ShellRequest {
  return redactDebugForm({ class: 'shell', invocation: 'shell', ...facts });
}
