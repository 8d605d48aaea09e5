import { isIP } from 'node:net';

/** An address range as a rule or the table of special ranges writes it: `10.0.0.0/8`, `fc00::/7`. */
export interface AddressRange {
  /** The network address, canonical (dotted IPv4, compressed IPv6 without brackets). */
  address: string;
  prefix: number;
  family: 4 | 6;
}

/** The bytes of an IP literal (dotted IPv4, or IPv6 without brackets or zone), or undefined for anything else. */
export function addressBytes(literal: string): Uint8Array | undefined {
  const family = isIP(literal);
  if (family === 4) return Uint8Array.from(literal.split('.').map(Number));
  if (family !== 6) return undefined;
  const [head = '', tail] = literal.split('::') as [string, string | undefined];
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const words = (part: string): number[] =>
    groups(part).flatMap((group) => {
      if (!group.includes('.')) return [parseInt(group, 16)];
      const [a, b, c, d] = group.split('.').map(Number) as [number, number, number, number];
      return [(a << 8) | b, (c << 8) | d];
    });
  const before = words(head);
  const after = tail === undefined ? [] : words(tail);
  const all = [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
  const bytes = new Uint8Array(16);
  all.forEach((word, index) => {
    bytes[index * 2] = word >> 8;
    bytes[index * 2 + 1] = word & 0xff;
  });
  return bytes;
}

/** Whether an IP literal lies in a range (an IPv4 address is never inside an IPv6 range, nor the reverse). */
export function inRange(literal: string, range: AddressRange): boolean {
  const bytes = addressBytes(literal);
  const network = addressBytes(range.address);
  if (!bytes || !network || bytes.length !== network.length) return false;
  for (let bit = 0; bit < range.prefix; bit += 1) {
    const mask = 0x80 >> (bit % 8);
    if ((bytes[bit >> 3]! & mask) !== (network[bit >> 3]! & mask)) return false;
  }
  return true;
}

/**
 * The IPv4 address an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, `::ffff:7f00:1`) stands for: a
 * dual-stack socket connecting to one reaches that IPv4 address, so rules compare it as one.
 */
export function unmappedIpv4(ipv6: string): string | undefined {
  const bytes = addressBytes(ipv6);
  if (bytes?.length !== 16) return undefined;
  const mapped = bytes.subarray(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  return mapped ? [...bytes.subarray(12)].join('.') : undefined;
}

/** What a special range is, as a message names it. */
export type SpecialKind = 'loopback' | 'private' | 'link-local' | 'unspecified' | 'multicast' | 'shared' | 'reserved';

/** Address ranges that are not the public internet (IANA's special-purpose registries), most specific first. */
const specialRanges: readonly (AddressRange & { kind: SpecialKind })[] = [
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'],
  ['192.0.2.0/24', 'reserved'],
  ['192.88.99.0/24', 'reserved'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'reserved'],
  ['198.51.100.0/24', 'reserved'],
  ['203.0.113.0/24', 'reserved'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  // IPv4-compatible, NAT64, discard, Teredo and 6to4 addresses carry or reach an IPv4 address.
  ['::/96', 'reserved'],
  ['64:ff9b::/96', 'reserved'],
  ['64:ff9b:1::/48', 'reserved'],
  ['100::/64', 'reserved'],
  ['2001::/23', 'reserved'],
  ['2001:db8::/32', 'reserved'],
  ['2002::/16', 'reserved'],
  ['fc00::/7', 'private'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'private'],
  ['ff00::/8', 'multicast'],
].map(([cidr, kind]) => {
  const [address, prefix] = cidr!.split('/') as [string, string];
  return { address, prefix: Number(prefix), family: isIP(address) as 4 | 6, kind: kind as SpecialKind };
});

/** The special range an IP literal lies in (loopback, private, link-local, …), or undefined for a public address. */
export function specialRange(literal: string): (AddressRange & { kind: SpecialKind }) | undefined {
  return specialRanges.find((range) => inRange(literal, range));
}
