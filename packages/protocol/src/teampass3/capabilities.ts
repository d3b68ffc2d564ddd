/**
 * What a TeamPass 3 server can do: its {@link ServerCapabilities}, the same for every instance
 * (its keyless answers say nothing more).
 *
 * @module
 */

import type { ServerCapabilities } from '../capabilities.ts';

/**
 * The capabilities of a TeamPass 3 server: a session token in the `Authorization` header, search
 * by any text, no attachments, TOTP codes, tags and URL lookup, one id per read, every call as the
 * signed-in user with the rights the server enforces.
 *
 * @param options The most records a paged read gathers (the search cap; 100 000, the session's
 *   default), and whether the server answered the identification.
 * @returns The capabilities.
 */
export function teampass3Capabilities(
  options: {
    version?: string | undefined;
    maxResults?: number | undefined;
    detected?: boolean | undefined;
  } = {},
): ServerCapabilities {
  return {
    server: 'teampass3',
    dialect: 'teampass3',
    credentials: 'password',
    // TeamPass 3's keyless answers do not say its version (its OpenAPI document's is the API's).
    version: undefined,
    features: [],
    keyTransport: 'header',
    search: 'full',
    files: false,
    // Recorded live: TeamPass 3.2.1.5 (utf8mb4 tables) stores and answers emoji as sent.
    fourByteText: true,
    maxResults: options.maxResults ?? 100_000,
    maxIds: 1,
    otp: true,
    tags: true,
    editTags: 'kept',
    urlLookup: true,
    otherUsers: false,
    enforcedRights: true,
    detected: options.detected ?? true,
  };
}
