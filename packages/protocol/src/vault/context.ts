/**
 * What the domain client's resources share (`items.ts`, `folders.ts`, `files.ts`): the wire client
 * of whichever dialect answers, and who the client acts as.
 *
 * @module
 */

import type { CallOptions, WireClient } from '../client/types.ts';
import { VaultError } from '../errors.ts';
import type { ActingOptions, VaultClient, VaultIdentity } from './types.ts';

/** What each resource of the domain client is made of. */
export interface VaultContext {
  /** The wire client of whichever dialect answers. */
  readonly wire: WireClient;
  /** Who the client acts as: the signed-in user (TeamPass 3), or the configured login (legacy API). */
  identity(options?: CallOptions): Promise<VaultIdentity>;
  /**
   * Who a call acts for: the one it names, else {@link VaultContext.identity}'s login.
   *
   * @throws {VaultError} `invalid_request` when neither names one; nothing was sent.
   */
  actingLogin(options: ActingOptions | undefined, operation: string): Promise<string>;
}

/**
 * The login a call acts for, by the one rule of every app: the login the call names, else the
 * client's (`identity().login`): the signed-in user where the vault signs users in (TeamPass 3),
 * else the credentials' `login` (who a legacy key acts for).
 *
 * @param client The client.
 * @param options The call's options: its `login`, its signal.
 * @returns The login, or `undefined` when there is none (a legacy key given no login).
 * @example
 * ```ts
 * const login = await actingLoginOf(vault);
 * if (login === undefined) throw new Error('Name the login to act for.');
 * ```
 */
export async function actingLoginOf(
  client: Pick<VaultClient, 'identity'>,
  options?: ActingOptions,
): Promise<string | undefined> {
  return options?.login ?? (await client.identity(options)).login;
}

/**
 * The context of a domain client over a wire client.
 *
 * @param wire The wire client.
 * @param configuredLogin The login of the credentials: who a legacy key acts for.
 * @returns The context.
 */
export function createVaultContext(wire: WireClient, configuredLogin: string | undefined): VaultContext {
  async function identity(options?: CallOptions): Promise<VaultIdentity> {
    const signedIn = await wire.identity(options);
    return { ...signedIn, login: signedIn.login ?? configuredLogin };
  }

  async function actingLogin(options: ActingOptions | undefined, operation: string): Promise<string> {
    const login = await actingLoginOf({ identity }, options);
    if (login === undefined) {
      throw new VaultError(
        'invalid_request',
        `${operation}: the API key acts for nobody in particular; name the login to act for (auth.login, or the call's login option). Nothing was sent.`,
        { endpoint: operation },
      );
    }
    return login;
  }

  return { wire, identity, actingLogin };
}
