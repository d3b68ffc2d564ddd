/**
 * Who the client is, by address: the socket's peer, or the address a trusted proxy forwards.
 *
 * @module
 */

import { isIP } from 'node:net';
import type { MiddlewareHandler } from 'hono';
import { normalizeAddress, parseCidrList } from '../net/ip-rules.ts';
import type { AppEnv } from './app-env.ts';

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

/**
 * Sets `address` for the rest of the request. `X-Forwarded-For` is read only when trusted proxies
 * are configured.
 *
 * @param trustedProxies CIDR ranges of the proxies whose `X-Forwarded-For` is believed.
 * @returns The middleware.
 */
export function clientAddressMiddleware(trustedProxies: readonly string[]): MiddlewareHandler<AppEnv> {
  const trusted =
    trustedProxies.length > 0 ? parseCidrList(trustedProxies, 'the trusted proxies') : undefined;
  return async (c, next) => {
    const forwarded = trusted ? c.req.header('x-forwarded-for') : undefined;
    // Without a socket (app.request() in tests) the client is taken to be local.
    c.set(
      'address',
      clientAddress(c.env?.incoming?.socket?.remoteAddress ?? '127.0.0.1', forwarded, trusted),
    );
    await next();
  };
}
