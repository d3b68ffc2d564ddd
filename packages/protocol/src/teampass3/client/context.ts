/**
 * What every TeamPass 3 operation of the one client interface works with: the session, the
 * credentials it signs in with, and whether TOTP secrets are kept.
 *
 * @module
 */

import type { CallOptions } from '../../client/types.ts';
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
