/**
 * The keys of the issuers trust policies name: the discovery document
 * (`<issuer>/.well-known/openid-configuration`, whose `issuer` must be the policy's) and its JWKS,
 * or a key set's URL given by the policy. Cached per issuer:
 *
 * - a key set younger than `maxAgeMs` is used without asking;
 * - an older one is fetched again, and kept in use if the fetch fails or is slow, up to
 *   `staleMaxAgeMs` (an issuer's outage does not stop the jobs it already signed for);
 * - a token whose `kid` the set lacks (a rotation) fetches the set once more, at most once per
 *   `refetchCooldownMs` per issuer, so that unknown kids cannot make the server hammer an issuer;
 * - concurrent fetches of one issuer are one fetch.
 *
 * jose's `createRemoteJWKSet` does the first and third but fails when a refresh fails; this keeps
 * jose's key selection (`createLocalJWKSet`) under a cache that keeps working.
 *
 * @module
 */

import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import * as v from 'valibot';
import { checkIssuerUrl } from './issuer-url.ts';

/** An issuer's keys could not be had: the server's concern, not the token's. */
export class IssuerUnavailableError extends Error {
  override name = 'IssuerUnavailableError';
}

/** Settings of {@link createIssuerKeys}. */
export interface IssuerKeysOptions {
  /** The `fetch` to use; the global one by default. */
  fetch?: typeof globalThis.fetch | undefined;
  /** Time allowed for one fetch, in ms. */
  timeoutMs?: number | undefined;
  /** How long a key set is used without asking again, in ms. */
  maxAgeMs?: number | undefined;
  /** How long a key set stays in use while the issuer cannot be reached, in ms. */
  staleMaxAgeMs?: number | undefined;
  /** The least time between two fetches of one issuer for an unknown `kid`, in ms. */
  refetchCooldownMs?: number | undefined;
  /** The clock. */
  now?: (() => number) | undefined;
}

/** The issuers' keys. */
export interface IssuerKeys {
  /**
   * The key lookup of one issuer, for jose's `jwtVerify`.
   *
   * @param issuer The issuer (a policy's `--issuer`).
   * @param jwksUrl The policy's key set URL, which skips discovery; `undefined` to discover it.
   */
  lookup(issuer: string, jwksUrl: string | undefined): JWTVerifyGetKey;
}

const DiscoverySchema = v.object({ issuer: v.string(), jwks_uri: v.string() });
const JwksSchema = v.object({ keys: v.array(v.looseObject({ kty: v.string() })) });

/** The most bytes of a discovery document or key set read. */
const MAX_DOCUMENT_BYTES = 256 * 1024;

interface Entry {
  keys: JWTVerifyGetKey | undefined;
  fetchedAt: number;
  lastFetch: number;
  pending: Promise<void> | undefined;
}

/**
 * Creates the cache of issuers' keys.
 *
 * @param options Timeouts and ages.
 * @returns The keys.
 */
export function createIssuerKeys(options: IssuerKeysOptions = {}): IssuerKeys {
  const fetcher = options.fetch ?? globalThis.fetch;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const maxAgeMs = options.maxAgeMs ?? 10 * 60_000;
  const staleMaxAgeMs = options.staleMaxAgeMs ?? 24 * 60 * 60_000;
  const cooldownMs = options.refetchCooldownMs ?? 30_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>();

  async function getJson<T>(url: string, schema: v.GenericSchema<unknown, T>, what: string): Promise<T> {
    let text: string;
    try {
      const response = await fetcher(url, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!response.ok) {
        await response.body?.cancel().catch(() => {});
        throw new IssuerUnavailableError(`The issuer's ${what} answered HTTP ${response.status}.`);
      }
      text = await response.text();
    } catch (error) {
      if (error instanceof IssuerUnavailableError) throw error;
      const timedOut = (error as Error).name === 'TimeoutError';
      throw new IssuerUnavailableError(
        `The issuer's ${what} ${timedOut ? `did not answer within ${timeoutMs} ms` : 'could not be reached'}.`,
      );
    }
    if (text.length > MAX_DOCUMENT_BYTES)
      throw new IssuerUnavailableError(`The issuer's ${what} is larger than ${MAX_DOCUMENT_BYTES} bytes.`);
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw new IssuerUnavailableError(`The issuer's ${what} is not JSON.`);
    }
    const parsed = v.safeParse(schema, data);
    if (!parsed.success)
      throw new IssuerUnavailableError(`The issuer's ${what} is not of the expected shape.`);
    return parsed.output;
  }

  async function fetchKeys(issuer: string, jwksUrl: string | undefined): Promise<JWTVerifyGetKey> {
    let url = jwksUrl;
    if (url === undefined) {
      const discovery = await getJson(
        `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`,
        DiscoverySchema,
        'discovery document',
      );
      if (discovery.issuer !== issuer)
        throw new IssuerUnavailableError("The issuer's discovery document names another issuer.");
      try {
        url = checkIssuerUrl(discovery.jwks_uri, "the discovery document's jwks_uri");
      } catch (error) {
        throw new IssuerUnavailableError((error as Error).message);
      }
    }
    const jwks = await getJson(url, JwksSchema, 'key set');
    return createLocalJWKSet(jwks as JSONWebKeySet);
  }

  function refresh(entry: Entry, issuer: string, jwksUrl: string | undefined): Promise<void> {
    entry.pending ??= (async () => {
      entry.lastFetch = now();
      try {
        entry.keys = await fetchKeys(issuer, jwksUrl);
        entry.fetchedAt = now();
      } finally {
        entry.pending = undefined;
      }
    })();
    return entry.pending;
  }

  /** A fresh enough key set: the cached one, or one fetched now; a stale one if the fetch fails. */
  async function current(
    entry: Entry,
    issuer: string,
    jwksUrl: string | undefined,
  ): Promise<JWTVerifyGetKey> {
    const age = now() - entry.fetchedAt;
    if (entry.keys !== undefined && age < maxAgeMs) return entry.keys;
    try {
      await refresh(entry, issuer, jwksUrl);
    } catch (error) {
      if (entry.keys !== undefined && age < staleMaxAgeMs) return entry.keys;
      throw error;
    }
    return entry.keys!;
  }

  return {
    lookup(issuer, jwksUrl) {
      const cacheKey = JSON.stringify([issuer, jwksUrl ?? null]);
      let entry = entries.get(cacheKey);
      if (!entry) {
        entry = {
          keys: undefined,
          fetchedAt: Number.NEGATIVE_INFINITY,
          lastFetch: Number.NEGATIVE_INFINITY,
          pending: undefined,
        };
        entries.set(cacheKey, entry);
      }
      const known = entry;
      return async (header, token) => {
        const keys = await current(known, issuer, jwksUrl);
        try {
          return await keys(header, token);
        } catch (error) {
          // A kid the set lacks may be a rotation: ask again, once per cooldown.
          if (!(error instanceof errors.JWKSNoMatchingKey) || now() - known.lastFetch < cooldownMs)
            throw error;
          await refresh(known, issuer, jwksUrl).catch(() => undefined);
          return known.keys!(header, token);
        }
      };
    },
  };
}
