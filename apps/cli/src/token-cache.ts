/**
 * Where a connection's session token (TeamPass 3's JWT) waits between commands, so that a command
 * normally signs in not at all: next to the secrets it was made from. When the password (or
 * personal access token) comes from the OS keychain, the token is a keychain entry too. When it
 * comes from the environment (CI) or there is no keychain, the token goes to a file of its own in
 * the cache directory, which is useless without those same credentials:
 *
 * - the directory is made mode 0700 and used only when it is a real directory of this user that
 *   no one else can write; the file is written mode 0600 through a temporary file and a rename,
 *   and read only when it is a regular file of this user that no one else can read;
 * - the token is sealed with AES-256-GCM under a key derived with HKDF-SHA256 from the sign-in
 *   secrets the process holds (the password with the API key, or the personal access token), a
 *   random salt per write, and the vault's URL and the login as the context, which is also the
 *   authenticated data: other credentials, another vault or login, or a changed byte, and the
 *   file does not open; it is then ignored, and replaced after the next sign-in;
 * - the file holds no URL, login or token in clear: its name is a hash of the URL and login.
 *
 * The sealing and the file handling are `@vaultline/sealer/node`'s, shared with the secrets file.
 *
 * HKDF rather than a slow KDF (scrypt): the key material includes the API key (or the personal
 * access token), random strings of 200 bits and more that no one guesses, and a slow KDF would
 * cost every command tens of milliseconds.
 *
 * @module
 */

import { type CredentialFields, DIALECTS, type Dialect, type TokenCache } from '@vaultline/protocol';
import { type SealedCacheCodec, sealedCache } from '@vaultline/sealer/node';
import * as v from 'valibot';
import { deleteSecret, readSecret, storeSecret } from './keychain.ts';

/** The clear fields of a token file, beside the sealed token. */
const TokenFileFields = {
  /** The dialect the client spoke when it wrote the token (authenticated with it). */
  dialect: v.optional(v.picklist(DIALECTS)),
};

/** A cached token and the dialect it was made for. */
interface CachedToken {
  readonly token: string;
  readonly dialect: Dialect | undefined;
}

/** The token sealed as it is, the dialect in clear and authenticated with it. */
const tokenCodec: SealedCacheCodec<CachedToken, typeof TokenFileFields> = {
  clear: TokenFileFields,
  encode: ({ token, dialect }) => ({ text: token, clear: dialect === undefined ? {} : { dialect } }),
  decode: (text, { dialect }) => (text === '' ? undefined : { token: text, dialect }),
  aad: (context, { dialect }) => Buffer.from(JSON.stringify([context, dialect ?? null])),
};

/** A file per vault and login (`session-<hash>.json`). */
const tokenFiles = sealedCache({
  // Names the format, and separates its keys from any other use of the same secrets.
  label: 'vaultline session token cache v1',
  prefix: 'session',
  what: 'session token',
  codec: tokenCodec,
});

/** A session token cache that also says which dialect the token was made for. */
export interface ConnectionTokenCache extends TokenCache {
  /** The dialect recorded with the cached token, when there is a usable one: no probe needed. */
  dialect(): Promise<Dialect | undefined>;
  /** Forgets the token without reading it (no credentials needed). */
  clear(): Promise<void>;
}

/** Options of {@link fileTokenCache}. */
export interface FileTokenCacheOptions {
  /** The cache directory. */
  dir: string;
  /** The vault's URL, as configured. */
  url: string;
  /** The login that signs in. */
  login: string;
  /**
   * The credentials the token is sealed with: those that signed in, the personal access token or
   * the password with the API key.
   */
  credentials: CredentialFields;
  /** The dialect to record with a token, asked when one is written. */
  dialect?: (() => Promise<Dialect | undefined>) | undefined;
  /** Told once when the cache cannot be used (a directory others may write, a full disk). */
  warn?: ((message: string) => void) | undefined;
}

/**
 * The token file of a connection: a hash of its URL and login, so that the name tells neither.
 *
 * @param dir The cache directory.
 * @param url The vault's URL.
 * @param login The login.
 * @returns The file's path.
 */
export function tokenFilePath(dir: string, url: string, login: string): string {
  return tokenFiles({ dir, url, scope: login }).path;
}

/** The key material of the credentials that signed in. */
function materialOf(credentials: CredentialFields): string {
  const { personalAccessToken, password, apiKey } = credentials;
  if (personalAccessToken) return JSON.stringify(['personal-access-token', personalAccessToken]);
  if (password && apiKey) return JSON.stringify(['password', password, apiKey]);
  throw new Error('A session token is sealed with a personal access token, or a password and an API key.');
}

/**
 * A session token cache in a file, sealed with the sign-in secrets (see the module's notes).
 * Every failure to read is a cache miss, every failure to write is told once and otherwise
 * ignored: a command then signs in, as it would without a cache.
 *
 * @param options Where, for which vault and login, and the credentials to seal with.
 * @returns The cache.
 * @throws {Error} When the credentials hold neither a personal access token nor a password with an API key.
 */
export function fileTokenCache(options: FileTokenCacheOptions): ConnectionTokenCache {
  const material = materialOf(options.credentials);
  const file = tokenFiles({ dir: options.dir, url: options.url, scope: options.login });
  let loaded: Promise<CachedToken | undefined> | undefined;
  let warned = false;
  const warn = (message: string) => {
    if (warned) return;
    warned = true;
    options.warn?.(message);
  };
  const load = () => {
    loaded ??= file.get(material);
    return loaded;
  };

  return {
    async get() {
      return (await load())?.token;
    },
    async set(token) {
      if (token === undefined) {
        loaded = Promise.resolve(undefined);
        await file.forget().catch((error: unknown) => {
          warn(
            `Could not cache the session token in ${options.dir}: ${(error as NodeJS.ErrnoException).code ?? 'error'}.`,
          );
        });
        return;
      }
      const written = await file.set(
        material,
        async () => ({ token, dialect: await options.dialect?.().catch(() => undefined) }),
        warn,
      );
      loaded = Promise.resolve(written ?? { token, dialect: undefined });
    },
    async dialect() {
      return (await load())?.dialect;
    },
    async clear() {
      loaded = Promise.resolve(undefined);
      await file.forget().catch(() => undefined);
    },
  };
}

/**
 * A session token cache in the OS keychain, for connections whose secrets live there. A keychain
 * that fails is a cache miss; the dialect comes from the config file.
 *
 * @param account The keychain account of the token.
 * @returns The cache.
 */
export function keychainTokenCache(account: string): ConnectionTokenCache {
  return {
    get: () => readSecret(account).catch(() => undefined),
    async set(token) {
      await (token === undefined ? deleteSecret(account) : storeSecret(account, token)).catch(
        () => undefined,
      );
    },
    dialect: async () => undefined,
    async clear() {
      await deleteSecret(account).catch(() => undefined);
    },
  };
}
