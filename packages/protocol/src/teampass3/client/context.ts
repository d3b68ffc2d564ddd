/**
 * What every TeamPass 3 operation of the one client interface works with: the session, the
 * credentials it signs in with, and whether TOTP secrets are kept.
 *
 * @module
 */

import type { CallOptions } from '../../client/types.ts';
import type { EndpointInput, EndpointName, EndpointOutput } from '../../legacy/endpoints.ts';
import type { TeamPass3Credentials, TeamPass3Session } from '../session.ts';

/** The client's state, shared by its operations. */
export interface TeamPass3ClientState {
  /** The signed-in user's session. */
  readonly session: TeamPass3Session;
  /** The credentials the session signs in with. */
  readonly credentials: TeamPass3Credentials;
  /** Whether items keep the TOTP secret TeamPass sends (`keepOtpSecrets`, for a migration). */
  readonly keepOtp: boolean;
}

/** A call's signal, as the session takes it. */
export const signalOf = (callOptions: CallOptions | undefined): { signal: AbortSignal | undefined } => ({
  signal: callOptions?.signal,
});

/** One operation of the client interface over TeamPass 3: the client's state, the operation's input. */
export type TeamPass3Operation<K extends EndpointName> = (
  state: TeamPass3ClientState,
  input: EndpointInput<K>,
  callOptions?: CallOptions,
) => Promise<EndpointOutput<K>>;
