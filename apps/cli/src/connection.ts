/**
 * Which vault a command talks to: the named connection from the config file, with
 * `VAULTLINE_URL`, `VAULTLINE_LOGIN` and `VAULTLINE_API_KEY` overriding the default one (CI needs
 * no `connect`). The key comes from the environment or the keychain, never from a file.
 *
 * @module
 */

import {
  createRedactor,
  createVaultClient,
  EXIT,
  type Redactor,
  type VaultClient,
} from '@vaultline/protocol';
import { configPath, readConfig } from './config.ts';
import { DEFAULT_CONNECTION, ENV } from './constants.ts';
import { type CliEnvironment, keyVariable } from './env.ts';
import { CliError } from './errors.ts';
import { keychainAccount, readKey } from './keychain.ts';

/** An open connection. */
export interface Connection {
  /** Its name. */
  readonly name: string;
  /** The vault's base URL. */
  readonly url: string;
  /** The login to act for, when known. */
  readonly login: string | undefined;
  /** The client. */
  readonly client: VaultClient;
  /** Removes the key from text. */
  readonly redact: Redactor;
}

/**
 * Opens a connection.
 *
 * @param env The environment.
 * @param name The connection's name; the default one when absent.
 * @returns The connection.
 * @throws {CliError} `no_connection` or `no_key` (exit 4).
 */
export async function openConnection(env: CliEnvironment, name?: string): Promise<Connection> {
  const chosen = name ?? DEFAULT_CONNECTION;
  const isDefault = chosen === DEFAULT_CONNECTION;
  const useEnv = isDefault && env.url !== undefined;
  const config = useEnv && env.apiKey !== undefined ? { connections: {} } : await readConfig(env.configDir);
  const stored = config.connections[chosen];
  const url = useEnv ? env.url : stored?.url;
  if (url === undefined) {
    throw new CliError(
      'no_connection',
      isDefault
        ? `No vault connection: run vaultline connect <url> --login <login>, or set ${ENV.url} (and ${ENV.apiKey}, ${ENV.login}).`
        : `No connection named ${JSON.stringify(chosen)} in ${configPath(env.configDir)}: run vaultline connect <url> --name ${chosen}.`,
      EXIT.auth,
    );
  }
  const login = (isDefault ? env.login : undefined) ?? (useEnv ? undefined : stored?.login);
  let apiKey = env.keyFor(chosen);
  if (apiKey === undefined) {
    try {
      apiKey = await readKey(keychainAccount(url, login));
    } catch (error) {
      if (error instanceof CliError && error.code === 'keychain_unavailable') {
        throw new CliError(
          'no_key',
          `No API key for ${url}. ${error.message.replace(ENV.apiKey, keyVariable(chosen))}`,
          EXIT.auth,
          { cause: error },
        );
      }
      throw error;
    }
    if (apiKey === undefined) {
      throw new CliError(
        'no_key',
        `No API key for ${url} in the keychain: run vaultline connect ${url} --key-stdin, or set ${keyVariable(chosen)}.`,
        EXIT.auth,
      );
    }
  }
  let client: VaultClient;
  try {
    client = createVaultClient({ baseUrl: url, apiKey });
  } catch (error) {
    throw new CliError('invalid_connection', (error as Error).message, EXIT.auth, { cause: error });
  }
  return { name: chosen, url: client.baseUrl, login, client, redact: createRedactor([apiKey]) };
}

/**
 * Tells the login a command acts for, or fails with a clear message.
 *
 * @param connection The connection.
 * @param what What needs it, for the message.
 * @returns The login.
 * @throws {CliError} `no_login` (exit 4).
 */
export function requireLogin(connection: Connection, what: string): string {
  if (connection.login !== undefined) return connection.login;
  throw new CliError(
    'no_login',
    `${what} needs a vault login: set ${ENV.login}, or run vaultline connect ${connection.url} --login <login>.`,
    EXIT.auth,
  );
}
