/**
 * The types of the TeamPass 3 caller: its options, a request event, and what a call gives.
 *
 * @module
 */

import type { Redactor, VaultError } from '../../errors.ts';
import type {
  TeamPass3EndpointDefinition,
  TeamPass3EndpointName,
  TeamPass3Input,
  TeamPass3Output,
} from '../endpoints.ts';

/** A redacted record of one HTTP exchange, for request logs: never a secret, never a body. */
export interface TeamPass3RequestEvent {
  /** The operation's name in the table. */
  endpoint: TeamPass3EndpointName;
  /** The HTTP method. */
  method: string;
  /** The URL, redacted (it never carries credentials: they travel in bodies and headers). */
  url: string;
  /** The HTTP status, when a response arrived. */
  status: number | undefined;
  /** How long it took, in ms. */
  durationMs: number;
  /** The error's code, when it failed. */
  errorCode: string | undefined;
}

/** Options of {@link createTeamPass3Caller}. */
export interface TeamPass3CallerOptions {
  /** The server's base URL (the part before `/api/index.php`); a URL naming the API path is accepted. */
  baseUrl: string;
  /** The API's path under the base URL. Default `/api/index.php`. */
  apiPath?: string | undefined;
  /** The `fetch` to send with; by default Node's HTTP client on Node, the global `fetch` elsewhere. */
  fetch?: typeof globalThis.fetch | undefined;
  /** Time allowed for one attempt, headers and body, in ms. Default 10 000. */
  timeoutMs?: number | undefined;
  /** How many times a read is retried on network errors and 502/503/504 without a problem body. Default 2. */
  retries?: number | undefined;
  /** The first retry's delay in ms, doubled on each retry. Default 200. */
  retryDelayMs?: number | undefined;
  /** The largest answer read, in bytes. Default 64 MiB. */
  maxResponseBytes?: number | undefined;
  /** The longest single wait on a 429, in ms; a longer `Retry-After` fails at once. Default 30 000. */
  maxRetryAfterMs?: number | undefined;
  /** How many 429s a call waits out before failing with `rate_limited`. Default 2. */
  rateLimitRetries?: number | undefined;
  /** How to wait out a 429. Default a timer. */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /** Extra request headers (a proxy's). */
  headers?: Readonly<Record<string, string>> | undefined;
  /** Removes secrets from everything reported. */
  redact: Redactor;
  /** Receives a redacted record of every exchange. */
  onRequest?: ((event: TeamPass3RequestEvent) => void) | undefined;
}

/** Per-call options. */
export interface TeamPass3CallOptions {
  /** The JWT, for rows that need one. */
  token?: string | undefined;
  /** Cancels the call. */
  signal?: AbortSignal | undefined;
}

/** A successful answer. */
export interface TeamPass3Success<K extends TeamPass3EndpointName> {
  /** Success. */
  ok: true;
  /** The HTTP status (200, or 201 for creates). */
  status: number;
  /** The body, parsed with the row's schema. */
  data: TeamPass3Output<K>;
  /** `X-Total-Count`, when sent. */
  total: number | undefined;
}

/** A failed call, as a value. */
export interface TeamPass3Failure {
  /** Failure. */
  ok: false;
  /** The HTTP status, when a response arrived. */
  status: number | undefined;
  /** The error to throw. */
  error: VaultError;
}

/** What {@link TeamPass3Caller.send} resolves to. */
export type TeamPass3Result<K extends TeamPass3EndpointName> = TeamPass3Success<K> | TeamPass3Failure;

/** Sends operations of the TeamPass 3 table. */
export interface TeamPass3Caller {
  /** The base URL. */
  readonly baseUrl: string;
  /**
   * Sends an operation and resolves to its outcome, failures included (for the session's
   * decisions on 401 and 429).
   *
   * @param name The operation.
   * @param input Its parameters.
   * @param options The token and a signal.
   * @returns The outcome.
   */
  send<K extends TeamPass3EndpointName>(
    name: K,
    input: TeamPass3Input<K>,
    options?: TeamPass3CallOptions,
  ): Promise<TeamPass3Result<K>>;
  /**
   * Checks an operation's input against its row, without sending anything.
   *
   * @param name The operation.
   * @param input Its parameters.
   * @returns The error `send` would resolve to, or `undefined` when the input is fine.
   */
  validate<K extends TeamPass3EndpointName>(name: K, input: TeamPass3Input<K>): VaultError | undefined;
  /**
   * Sends an operation.
   *
   * @param name The operation.
   * @param input Its parameters.
   * @param options The token and a signal.
   * @returns The parsed body.
   * @throws {VaultError} For every failure.
   */
  call<K extends TeamPass3EndpointName>(
    name: K,
    input: TeamPass3Input<K>,
    options?: TeamPass3CallOptions,
  ): Promise<TeamPass3Output<K>>;
}

/** The call an answer belongs to. */
export interface Origin {
  name: TeamPass3EndpointName;
  row: TeamPass3EndpointDefinition;
  url: string;
}
