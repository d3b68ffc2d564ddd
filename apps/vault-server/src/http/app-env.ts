/**
 * What the app's middleware share through the context.
 *
 * @module
 */

import type { HttpBindings } from '@hono/node-server';
import type { Context } from 'hono';
import type { Principal } from '../store/access.ts';

/** The Hono environment of the app. */
export interface AppEnv {
  /** node:http's request and response; absent when the app is called with `app.request()`. */
  Bindings: Partial<HttpBindings>;
  Variables: {
    /** The client's address (see {@link ./client-address.ts}). */
    address: string;
    /** Who calls, once the key is checked. */
    principal: Principal;
    /** The operation's name for the request log, `unknown` until a route matches. */
    operation: string;
    /** What the audit record names as the target (`item 54`), set by the handler. */
    auditTarget: string;
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
