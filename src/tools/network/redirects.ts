import { ToolError } from '../../host/errors.js';
import { headersForHop } from './headers.js';
import { parseHttpTarget, sameOrigin, type HttpTarget } from './url.js';

/** One request on the way to the final response. */
export interface Hop {
  readonly method: string;
  readonly target: HttpTarget;
  readonly headers: Headers;
  readonly body: string | undefined;
}

const redirectStatuses: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** Whether a response asks the client to go elsewhere. */
export function isRedirect(status: number, location: string | null): location is string {
  return redirectStatuses.has(status) && location !== null;
}

/**
 * The request a redirect leads to, as browsers make it: 303 (and 301/302 after a POST) become a
 * GET without a body; credentials stay behind when the origin changes. The caller authorizes
 * the returned hop before sending it.
 */
export function nextHop(current: Hop, status: number, location: string): Hop {
  let target: HttpTarget;
  try {
    target = parseHttpTarget(location, current.target.url);
  } catch (cause) {
    throw new ToolError('execution_failed', `${current.method} ${current.target.display} redirected to a location rho refuses: ${(cause as Error).message}`, {
      cause,
    });
  }
  const becomesGet = (status === 303 && current.method !== 'HEAD') || ((status === 301 || status === 302) && current.method === 'POST');
  const method = becomesGet ? 'GET' : current.method;
  return {
    method,
    target,
    headers: headersForHop(current.headers, !sameOrigin(current.target, target), becomesGet),
    body: becomesGet ? undefined : current.body,
  };
}
