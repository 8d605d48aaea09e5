import { lookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { ToolError } from '../../host/errors.js';

/** The one address a connection goes to, resolved once after its host was checked. */
export interface PinnedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Resolves a checked host name once. Every connection made for that check goes to this address
 * (`pinnedLookup`), so a DNS answer that changes between the check and the connect (rebinding)
 * cannot send an allowed name somewhere else. IP literals are taken as they are.
 */
export async function resolvePinned(hostname: string): Promise<PinnedAddress> {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  const literal = isIP(bare);
  if (literal === 4 || literal === 6) return { address: bare, family: literal };
  try {
    const { address, family } = await lookup(bare, { verbatim: true });
    return { address, family: family === 6 ? 6 : 4 };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'lookup failed';
    throw new ToolError('execution_failed', `could not resolve ${hostname}: ${code}`, { cause: error });
  }
}

/** A `lookup` for net/tls/http that always answers the pinned address, whatever name it is asked for. */
export function pinnedLookup(pinned: PinnedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  };
}
