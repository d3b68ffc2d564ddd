/**
 * What the Hono app's middleware share through the context. The app serves what is not the API
 * pipeline's (`/healthz`, `/readyz`, `/openapi.json`, CORS, and the API's POST and browser calls,
 * which it hands to the pipeline).
 *
 * @module
 */

import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';

/** The Hono environment of the app. */
export interface AppEnv {
  /** node:http's request and response; absent when the app is called with `app.request()`. */
  Bindings: Partial<HttpBindings>;
  Variables: {
    /** The client's address (see {@link ./client-address.ts}). */
    address: string;
    /** The route's name for the request log, `unknown` until a route names itself. */
    operation: string;
    /** Set by the API route: the pipeline has logged the request itself. */
    logged: boolean;
  };
}

/** The context every middleware of the app receives. */
export type AppContext = Context<AppEnv>;

/**
 * The raw request target, never percent-decoded nor normalised (`..` stays as sent).
 *
 * @param c The context.
 * @returns The path and query as the client sent them.
 */
export function rawTarget(c: AppContext): string {
  const incoming = c.env?.incoming?.url;
  if (incoming !== undefined) return incoming;
  const url = new URL(c.req.url);
  return url.pathname + url.search;
}

/**
 * The socket's peer address: `unknown` once the socket is gone (Node no longer knows it, and a
 * client must never pass for local by leaving early); `undefined` only without a socket at all
 * (`app.request()` in tests).
 *
 * @param c The context.
 * @returns The address.
 */
export function socketAddressOf(c: AppContext): string | undefined {
  const incoming = c.env?.incoming;
  return incoming ? (incoming.socket?.remoteAddress ?? UNKNOWN_ADDRESS) : undefined;
}

/** The address of a client whose socket closed before its address was read. */
export const UNKNOWN_ADDRESS = 'unknown';
