/**
 * The types of the TeamPass 3 caller: its options, a request event, and what a call gives.
 *
 * @module
 */

import type { ClientSettings } from '../../client/types.ts';
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

/**
 * Options of {@link createTeamPass3Caller}: the client's settings it reads, by their names in
 * `createVaultClient`'s options (`vault/options.ts` `settingsOf` applies the defaults), and the
 * redactor.
 */
export interface TeamPass3CallerOptions
  extends Pick<
    ClientSettings,
    'baseUrl' | 'fetch' | 'headers' | 'timeoutMs' | 'maxResponseBytes' | 'retry' | 'onRequest' | 'clock'
  > {
  /**
   * The API's path under the base URL (`legacy.apiPath`, which TeamPass 3 reads too). The base URL
   * may name it already.
   */
  readonly legacy: Pick<ClientSettings['legacy'], 'apiPath'>;
  /** Removes secrets from everything reported. */
  readonly redact: Redactor;
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
