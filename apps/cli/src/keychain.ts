/**
 * Secrets in the OS keychain, through @napi-rs/keyring (macOS Keychain, Windows Credential
 * Manager, the Secret Service or the kernel keyring on Linux), loaded only when needed: a
 * connection's API key, password or personal access token, and its session token.
 *
 * @module
 */

import { randomUUID } from 'node:crypto';
import { EXIT } from '@vaultline/protocol';
import { KEYCHAIN_SERVICE, type SecretKind } from './constants.ts';
import { CliError } from './errors.ts';

/** What the keychain keeps for a connection: its secrets, and the session token derived from them. */
export type KeychainEntry = SecretKind | 'session-token';

/**
 * The keychain account of a connection's secret: the login and URL (so that connecting again to
 * the same vault as the same person finds the same entries), then `#<kind>` for all but the API
 * key, whose account is the login and URL alone (as stored before there were other secrets).
 *
 * @param url The vault URL.
 * @param login The login.
 * @param entry Which secret; the API key by default.
 * @returns The account name.
 */
export function keychainAccount(
  url: string,
  login: string | undefined,
  entry: KeychainEntry = 'api-key',
): string {
  const base = `${login ?? ''}@${url}`;
  return entry === 'api-key' ? base : `${base}#${entry}`;
}

function unavailable(error: unknown): CliError {
  const detail = error instanceof Error ? error.message : String(error);
  return new CliError(
    'keychain_unavailable',
    `No OS keychain is available here (${detail}). On Linux the keychain is the Secret Service (GNOME Keyring, KWallet) on a D-Bus session, or the kernel keyring.`,
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
 * Reads a secret from the keychain.
 *
 * @param account The account.
 * @returns The secret, or `undefined` when none is stored.
 * @throws {CliError} `keychain_unavailable` when there is no keychain.
 */
export async function readSecret(account: string): Promise<string | undefined> {
  const item = await entry(account);
  try {
    return (await item.getPassword()) ?? undefined;
  } catch (error) {
    throw unavailable(error);
  }
}

/**
 * Stores a secret in the keychain.
 *
 * @param account The account.
 * @param secret The secret.
 * @throws {CliError} `keychain_unavailable` when there is no keychain.
 */
export async function storeSecret(account: string, secret: string): Promise<void> {
  const item = await entry(account);
  try {
    await item.setPassword(secret);
  } catch (error) {
    throw unavailable(error);
  }
}

/**
 * Removes a secret from the keychain.
 *
 * @param account The account.
 * @returns Whether one was removed.
 * @throws {CliError} `keychain_unavailable` when there is no keychain.
 */
export async function deleteSecret(account: string): Promise<boolean> {
  const item = await entry(account);
  try {
    return await item.deleteCredential();
  } catch (error) {
    throw unavailable(error);
  }
}

/** The account {@link probeKeychain} writes and removes. */
const PROBE_ACCOUNT = 'vaultline-probe';

/**
 * Whether a secret can be kept in the keychain here: writes and removes a probe entry (reading
 * alone is not enough: on Linux without a Secret Service, a read may answer "nothing stored"
 * where a write is refused).
 *
 * @returns `undefined` when it can, else the `keychain_unavailable` error that says why not.
 */
export async function probeKeychain(): Promise<CliError | undefined> {
  try {
    await storeSecret(PROBE_ACCOUNT, randomUUID());
    await deleteSecret(PROBE_ACCOUNT);
    return undefined;
  } catch (error) {
    return error instanceof CliError ? error : unavailable(error);
  }
}
