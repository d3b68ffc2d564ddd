/**
 * The API key in the OS keychain, through @napi-rs/keyring (macOS Keychain, Windows Credential
 * Manager, the Secret Service or the kernel keyring on Linux). Loaded only when needed.
 *
 * @module
 */

import { EXIT } from '@vaultline/protocol';
import { ENV, KEYCHAIN_SERVICE } from './constants.ts';
import { CliError } from './errors.ts';

/**
 * The keychain account of a connection: the login and URL, so that connecting again to the same
 * vault as the same person finds the same entry.
 *
 * @param url The vault URL.
 * @param login The login.
 * @returns The account name.
 */
export function keychainAccount(url: string, login: string | undefined): string {
  return `${login ?? ''}@${url}`;
}

function unavailable(error: unknown): CliError {
  const detail = error instanceof Error ? error.message : String(error);
  return new CliError(
    'keychain_unavailable',
    `No OS keychain is available here (${detail}). On Linux the keychain is the Secret Service (GNOME Keyring, KWallet) on a D-Bus session, or the kernel keyring. Set ${ENV.apiKey} in the environment instead.`,
    EXIT.auth,
    { cause: error },
  );
}

async function entry(account: string) {
  let keyring: typeof import('@napi-rs/keyring');
  try {
    keyring = await import('@napi-rs/keyring');
  } catch (error) {
    throw unavailable(error);
  }
  try {
    return new keyring.AsyncEntry(KEYCHAIN_SERVICE, account);
  } catch (error) {
    throw unavailable(error);
  }
}

/**
 * Reads a key from the keychain.
 *
 * @param account The account.
 * @returns The key, or `undefined` when none is stored.
 * @throws {CliError} `keychain_unavailable` when there is no keychain.
 */
export async function readKey(account: string): Promise<string | undefined> {
  const item = await entry(account);
  try {
    return (await item.getPassword()) ?? undefined;
  } catch (error) {
    throw unavailable(error);
  }
}

/**
 * Stores a key in the keychain.
 *
 * @param account The account.
 * @param key The API key.
 * @throws {CliError} `keychain_unavailable` when there is no keychain.
 */
export async function storeKey(account: string, key: string): Promise<void> {
  const item = await entry(account);
  try {
    await item.setPassword(key);
  } catch (error) {
    throw unavailable(error);
  }
}

/**
 * Removes a key from the keychain.
 *
 * @param account The account.
 * @returns Whether one was removed.
 * @throws {CliError} `keychain_unavailable` when there is no keychain.
 */
export async function deleteKey(account: string): Promise<boolean> {
  const item = await entry(account);
  try {
    return await item.deleteCredential();
  } catch (error) {
    throw unavailable(error);
  }
}
