/**
 * The types of a TeamPass 3 session: what signing in needs, where a token is kept, the options,
 * paged reads, and the session itself.
 *
 * @module
 */

import type { ClientSettings } from '../../client/types.ts';
import type { Redactor } from '../../errors.ts';
import type { TokenCache } from '../../vault/types.ts';
import type { TeamPass3CallerOptions } from '../caller.ts';
import type {
  TeamPass3EndpointName,
  TeamPass3Input,
  TeamPass3Output,
  TeamPass3PagedName,
} from '../endpoints.ts';
import type { TeamPass3Claims } from '../schemas.ts';

/** What signing in needs: a password and an API key, or a personal access token. */
export type TeamPass3Credentials =
  | {
      /** The login. */
      login: string;
      /** The password (TeamPass trims it: leading and trailing spaces cannot sign in). */
      password: string;
      /** The user's personal API key (profile page). */
      apiKey: string;
    }
  | {
      /** The login. */
      login: string;
      /** A personal access token (64 hex characters), where the site enables them. */
      personalAccessToken: string;
    };

/**
 * Where a short-lived process keeps its token between runs (the OS keychain, SecretStorage). The
 * session reads it once before it would sign in, writes every new token, and clears it when the
 * token is refused or the session is disposed. (`createVaultClient`'s `TokenCache`, by the
 * session's name.)
 */
export type TeamPass3TokenCache = TokenCache;

/** A token held, with its claims. */
export interface HeldToken {
  token: string;
  claims: TeamPass3Claims;
  /** The server's clock minus ours, from the token's `iat` at sign-in. */
  skewMs: number;
}

/**
 * Options of `createTeamPass3Session`: the caller's, the credentials, and the `teampass3` settings
 * by their names in `createVaultClient`'s options.
 */
export interface TeamPass3SessionOptions extends Omit<TeamPass3CallerOptions, 'redact'> {
  /** How to sign in. */
  readonly credentials: TeamPass3Credentials;
  /**
   * The session's settings: `tokenCache` (a token kept between processes), `refreshMarginMs` (sign
   * in again when fewer than this many ms remain before `exp`, and at most a quarter of the token's
   * lifetime: TeamPass allows one-minute tokens), `maxItems` (the most records a paged read
   * returns), `pageSize` (records asked per page), `concurrency` (pages, or single-id reads, sent
   * at once).
   */
  readonly teampass3: Pick<
    ClientSettings['teampass3'],
    'tokenCache' | 'refreshMarginMs' | 'maxItems' | 'pageSize' | 'concurrency'
  >;
}

/** Per-call options. */
export interface TeamPass3SessionCallOptions {
  /** Cancels the call. */
  signal?: AbortSignal | undefined;
}

/** Options of a paged read. */
export interface TeamPass3ReadAllOptions extends TeamPass3SessionCallOptions {
  /** The most records returned. Default: the session's `maxItems`. */
  maxItems?: number | undefined;
}

/** The record type of a paged operation's answer. */
export type TeamPass3Record<K extends TeamPass3PagedName> = TeamPass3Output<K>[number];

/** The input of a paged read: the operation's, without `limit` and `offset`. */
export type TeamPass3PagedInput<K extends TeamPass3PagedName> =
  TeamPass3Input<K> extends infer T ? (T extends unknown ? Omit<T, 'limit' | 'offset'> : never) : never;

/** What a paged read gathered. */
export interface TeamPass3Page<K extends TeamPass3PagedName> {
  /** The records, in the server's order. */
  items: TeamPass3Record<K>[];
  /** `X-Total-Count`, when the server sent it. */
  total: number | undefined;
  /** Whether more records exist than `maxItems` let through. */
  truncated: boolean;
}

/** A signed-in TeamPass 3 user. */
export interface TeamPass3Session {
  /** The base URL. */
  readonly baseUrl: string;
  /** Removes the password, the API key, the personal access token and every JWT from text. */
  readonly redact: Redactor;
  /** Sign-ins this session made (a cached or kept token costs none). */
  readonly signIns: number;
  /**
   * Calls an operation as the signed-in user.
   *
   * @param name The operation.
   * @param input Its parameters.
   * @param options A signal.
   * @returns The parsed answer.
   * @throws {VaultError} With the server's words; `rate_limited` when 429s outlast the bound.
   */
  call<K extends TeamPass3EndpointName>(
    name: K,
    input: TeamPass3Input<K>,
    options?: TeamPass3SessionCallOptions,
  ): Promise<TeamPass3Output<K>>;
  /**
   * Calls an operation once per input, a few at a time (TeamPass 3 reads one item per call), and
   * resolves to the answers in input order; the first failure rejects.
   *
   * @param name The operation.
   * @param inputs One input per call.
   * @param options How many calls run at once (default 4) and a signal.
   * @returns The parsed answers, in input order.
   */
  callEach<K extends TeamPass3EndpointName>(
    name: K,
    inputs: readonly TeamPass3Input<K>[],
    options?: TeamPass3SessionCallOptions & { concurrency?: number | undefined },
  ): Promise<TeamPass3Output<K>[]>;
  /**
   * Reads a paged operation to the end, or to `maxItems`.
   *
   * @param name The operation.
   * @param input Its parameters, without `limit` and `offset`.
   * @param options The cap and a signal.
   * @returns The records, the total and whether the cap cut them.
   */
  readAll<K extends TeamPass3PagedName>(
    name: K,
    input: TeamPass3PagedInput<K>,
    options?: TeamPass3ReadAllOptions,
  ): Promise<TeamPass3Page<K>>;
  /**
   * Reads a paged operation one page at a time as the caller iterates, to the end or to `maxItems`.
   *
   * @param name The operation.
   * @param input Its parameters, without `limit` and `offset`.
   * @param options The cap and a signal.
   * @returns The pages' records, each id once.
   */
  pages<K extends TeamPass3PagedName>(
    name: K,
    input: TeamPass3PagedInput<K>,
    options?: TeamPass3ReadAllOptions,
  ): AsyncIterable<TeamPass3Record<K>[]>;
  /**
   * Who is signed in, from the token (signs in when needed).
   *
   * @returns The token's claims.
   */
  user(options?: TeamPass3SessionCallOptions): Promise<TeamPass3Claims>;
  /**
   * Ends the session: signs the token out (`auth/logout`) and clears the token cache. With
   * `signOut: false`, only forgets the token here and leaves the cache for the next process.
   */
  dispose(options?: { signOut?: boolean | undefined }): Promise<void>;
}
