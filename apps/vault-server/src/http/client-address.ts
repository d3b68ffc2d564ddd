/**
 * Who the client is, by address: the socket's peer, or the address a trusted proxy forwards.
 *
 * @module
 */

import { isIP } from 'node:net';
import type { MiddlewareHandler } from 'hono';
import { normalizeAddress, parseCidrList } from '../net/ip-rules.ts';
import type { ApiRequest } from './api-call.ts';
import { type AppEnv, socketAddressOf } from './app-env.ts';

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

/** The client's address of a request, from its socket's peer and its headers. */
export type AddressOf = (request: Pick<ApiRequest, 'socketAddress' | 'header'>) => string;

/**
 * The client's address of a request. `X-Forwarded-For` is read only when trusted proxies are
 * configured; without a socket (`app.request()` in tests) the client is taken to be local.
 *
 * @param trustedProxies CIDR ranges of the proxies whose `X-Forwarded-For` is believed.
 * @returns The function.
 */
export function addressOf(trustedProxies: readonly string[]): AddressOf {
  const trusted =
    trustedProxies.length > 0 ? parseCidrList(trustedProxies, 'the trusted proxies') : undefined;
  return (request) =>
    clientAddress(
      request.socketAddress ?? '127.0.0.1',
      trusted ? request.header('x-forwarded-for') : undefined,
      trusted,
    );
}

/**
 * Sets `address` for the rest of the request (the Hono app's routes).
 *
 * @param resolve The address of a request.
 * @returns The middleware.
 */
export function clientAddressMiddleware(resolve: AddressOf): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    c.set(
      'address',
      resolve({
        socketAddress: socketAddressOf(c),
        header: (name) => c.req.header(name),
      }),
    );
    await next();
  };
}
