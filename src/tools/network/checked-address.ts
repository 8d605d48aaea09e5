import type { NetworkRequest } from '../../host/capability.js';
import { ToolError } from '../../host/errors.js';
import { specialRange } from '../../host/ip-address.js';
import { canonicalAddress } from '../../host/network-host.js';
import { resolvePinned, type PinnedAddress } from './pinned-address.js';

/** Decides one network request on the caller's authorization path; rejects with the typed denial. */
export type AuthorizeNetwork = (request: NetworkRequest) => Promise<void>;

/**
 * The address an authorized request connects to: its name resolved once (`resolvePinned`) and
 * the answer checked. A name that resolves to a special address — loopback, private,
 * link-local (where cloud metadata services answer), multicast, reserved — reaches it only when
 * the authorization path also allows a request for that address: a rule naming it
 * (`network(10.0.0.5)`), its range (`network(10.0.0.0/8)`), `network(localhost)` for loopback, or
 * the unrestricted `network`. So no name leads past a rule about an address, and a name an
 * attacker controls cannot point an allowed request at the machine or its network. The
 * unspecified address (`0.0.0.0`, `::`) is never connected to: on Linux it reaches this machine.
 */
export async function resolveCheckedAddress(request: NetworkRequest, authorize: AuthorizeNetwork): Promise<PinnedAddress> {
  const pinned = await resolvePinned(request.hostname);
  const hostname = canonicalAddress(pinned.address);
  const range = specialRange(hostname.replace(/^\[|\]$/g, ''));
  if (range?.kind === 'unspecified') {
    const what = hostname === request.hostname ? `${hostname} is the unspecified address` : `${request.hostname} resolved to ${hostname}, the unspecified address`;
    throw new ToolError('execution_failed', `${what}, which reaches this machine; rho does not connect to it (name 127.0.0.1 or localhost instead)`);
  }
  if (range === undefined || hostname === request.hostname) return pinned;
  const port = request.host.slice(request.hostname.length);
  await authorize({ ...request, host: `${hostname}${port}`, hostname, resolved: { from: request.hostname, kind: range.kind } });
  return pinned;
}
