import { isIP } from 'node:net';
import { normalizeAddress } from './ip-rules.ts';

/**
 * The client's address: the socket's peer, or, when the peer is a trusted proxy, the nearest
 * address in `X-Forwarded-For` that is not itself a trusted proxy.
 */
export function clientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | undefined,
  isTrustedProxy: ((address: string) => boolean) | undefined,
): string {
  const peer = normalizeAddress(socketAddress ?? 'unknown');
  if (!isTrustedProxy || !forwardedFor || !isTrustedProxy(peer)) return peer;
  const hops = forwardedFor.split(',').map((hop) => normalizeAddress(hop.trim()));
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!;
    if (isIP(hop) === 0) return peer;
    if (!isTrustedProxy(hop)) return hop;
  }
  return peer;
}
