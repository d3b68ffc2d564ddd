/**
 * One call as the signed-in user: the token added, one new sign-in and one retry on a 401. (A 429
 * is waited out by the transport under the caller, as for every call of either dialect.)
 *
 * @see ../README.md
 * @module
 */

import type { TeamPass3Caller } from '../caller.ts';
import {
  type TeamPass3EndpointName,
  type TeamPass3Input,
  type TeamPass3Output,
  teampass3Endpoints,
} from '../endpoints.ts';
import type { TokenKeeper } from './tokens.ts';

/** Sends one call; resolves to its parsed answer and `X-Total-Count`. */
export type SessionSend = <K extends TeamPass3EndpointName>(
  name: K,
  input: TeamPass3Input<K>,
  signal: AbortSignal | undefined,
) => Promise<{ data: TeamPass3Output<K>; total: number | undefined }>;

/**
 * Creates the session's send.
 *
 * @param caller The transport.
 * @param tokens The session's token.
 * @returns The send.
 */
export function createSessionSend(caller: TeamPass3Caller, tokens: TokenKeeper): SessionSend {
  return async (name, input, signal) => {
    const invalid = caller.validate(name, input);
    if (invalid) throw invalid;
    const bearer = teampass3Endpoints[name].auth === 'bearer';
    let signedInAgain = false;
    for (;;) {
      const entry = bearer ? await tokens.current(signal) : undefined;
      const result = await caller.send(name, input, { token: entry?.token, signal });
      if (result.ok) return { data: result.data, total: result.total };
      if (entry && result.status === 401 && !signedInAgain) {
        signedInAgain = true;
        await tokens.forget(entry.token);
        continue;
      }
      throw result.error;
    }
  };
}
