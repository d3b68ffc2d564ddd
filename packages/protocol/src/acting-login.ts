/**
 * Who a client acts for when it resolves references.
 *
 * @module
 */

import type { VaultClient } from './client/types.ts';

/**
 * The login a client acts for: the configured one where the credentials may read any user's
 * folders (`otherUsers`), the signed-in user's where every call runs as that user.
 *
 * @param client The client.
 * @param login The configured login.
 * @returns The login, when there is one.
 */
export async function actingLoginOf(
  client: Pick<VaultClient, 'capabilities' | 'identity'>,
  login: string | undefined,
): Promise<string | undefined> {
  const capabilities = await client.capabilities();
  if (capabilities.otherUsers) return login;
  return (await client.identity()).login ?? login;
}
