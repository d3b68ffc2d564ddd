/**
 * One call as the signed-in user: the token added, one new sign-in and one retry on a 401, a 429
 * waited out for as long as `Retry-After` says within a bound, then `rate_limited`.
 *
 * @see ../README.md
 * @module
 */

import { VaultError } from '../../errors.ts';
import type { TeamPass3Caller, TeamPass3Failure } from '../caller.ts';
import {
  type TeamPass3EndpointName,
  type TeamPass3Input,
  type TeamPass3Output,
  teampass3Endpoints,
} from '../endpoints.ts';
import type { TokenKeeper } from './tokens.ts';

/** How long and how often a call waits out 429s. */
export interface RateLimitPolicy {
  /** How many 429s a call waits out. */
  readonly retries: number;
  /** The longest single wait, in ms. */
  readonly maxRetryAfterMs: number;
  /** How to wait. */
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Sends one call; resolves to its parsed answer and `X-Total-Count`. */
export type SessionSend = <K extends TeamPass3EndpointName>(
  name: K,
  input: TeamPass3Input<K>,
  signal: AbortSignal | undefined,
) => Promise<{ data: TeamPass3Output<K>; total: number | undefined }>;

/** The `rate_limited` error of a 429 not waited out, saying why. */
function rateLimited(result: TeamPass3Failure, waits: number, policy: RateLimitPolicy): VaultError {
  const error = result.error;
  const asked = result.retryAfterMs ?? 1000;
  const seconds = (ms: number) => `${Math.ceil(ms / 1000)} s`;
  const after = result.retryAfterMs === undefined ? '' : ` The server asks to wait ${seconds(asked)}.`;
  // Waited out already, or a wait longer than this client waits (or no wait allowed): say which.
  const why =
    waits > 0
      ? `still limited after ${waits} wait${waits === 1 ? '' : 's'}`
      : policy.retries > 0 && asked > policy.maxRetryAfterMs
        ? `not waited: the wait asked is longer than the ${seconds(policy.maxRetryAfterMs)} this client waits`
        : 'not waited';
  return new VaultError('rate_limited', `${error.message.replace(/\.$/, '')}; ${why}.${after}`, {
    status: error.status,
    serverMessage: error.serverMessage,
    endpoint: error.endpoint,
    url: error.url,
    retryAfterMs: result.retryAfterMs,
    cause: error,
  });
}

/**
 * Creates the session's send.
 *
 * @param caller The transport.
 * @param tokens The session's token.
 * @param policy How 429s are waited out.
 * @returns The send.
 */
export function createSessionSend(
  caller: TeamPass3Caller,
  tokens: TokenKeeper,
  policy: RateLimitPolicy,
): SessionSend {
  return async (name, input, signal) => {
    const invalid = caller.validate(name, input);
    if (invalid) throw invalid;
    const bearer = teampass3Endpoints[name].auth === 'bearer';
    let signedInAgain = false;
    let waits = 0;
    for (;;) {
      const entry = bearer ? await tokens.current(signal) : undefined;
      const result = await caller.send(name, input, { token: entry?.token, signal });
      if (result.ok) return { data: result.data, total: result.total };
      if (entry && result.status === 401 && !signedInAgain) {
        signedInAgain = true;
        await tokens.forget(entry.token);
        continue;
      }
      if (result.status === 429) {
        const wait = result.retryAfterMs ?? 1000;
        if (waits < policy.retries && wait <= policy.maxRetryAfterMs) {
          waits++;
          await policy.sleep(wait, signal);
          if (signal?.aborted)
            throw new VaultError('aborted', `${teampass3Endpoints[name].operation} was cancelled.`);
          continue;
        }
        throw rateLimited(result, waits, policy);
      }
      throw result.error;
    }
  };
}
