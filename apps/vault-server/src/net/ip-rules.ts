import { BlockList, isIP } from 'node:net';

/**
 * Address rules (CIDR allow-lists), below both the HTTP layer and the store: the store checks a
 * key's allow-list, the HTTP layer its trusted proxies.
 *
 * @module
 */

/** A range that is not an IP address or a CIDR range. Its message names what was expected. */
export class AddressRuleError extends Error {
  override name = 'AddressRuleError';
}

/** Turns `::ffff:10.0.0.1` into `10.0.0.1`, so IPv4 rules match IPv4 clients on dual-stack sockets. */
export function normalizeAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/**
 * Parses CIDR ranges (`10.0.0.0/8`, `::1/128`, or a single address) into a matcher.
 *
 * @param ranges The ranges.
 * @param what What they are, for messages.
 * @returns A function telling whether an address is inside one of them.
 */
export function parseCidrList(ranges: readonly string[], what: string): (address: string) => boolean {
  const list = new BlockList();
  for (const raw of ranges) {
    const range = raw.trim();
    const [address = '', prefixText] = range.split('/');
    const family = isIP(address);
    if (family === 0)
      throw new AddressRuleError(
        `Expected ${what} to hold IP addresses or CIDR ranges, received ${JSON.stringify(range)}.`,
      );
    const type = family === 4 ? 'ipv4' : 'ipv6';
    const max = family === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? max : Number(prefixText);
    if (!/^\d{1,3}$/.test(prefixText ?? String(max)) || prefix > max) {
      throw new AddressRuleError(
        `Expected a prefix length of 0 to ${max} in ${what}, received ${JSON.stringify(range)}.`,
      );
    }
    list.addSubnet(address, prefix, type);
  }
  return (address: string) => {
    const normalized = normalizeAddress(address);
    const family = isIP(normalized);
    if (family === 0) return false;
    return list.check(normalized, family === 4 ? 'ipv4' : 'ipv6');
  };
}
