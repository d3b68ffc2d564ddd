import { CREDENTIAL_SECRETS, type CredentialKind, type CredentialSecret } from '@vaultline/protocol';

/**
 * The names a user or a script sees: environment variables, files. One place, so the README's
 * tables and the code cannot drift (test/docs.test.ts compares them). The exit codes are the
 * protocol core's `EXIT`, one table for every Vaultline command.
 *
 * @module
 */

/** Environment variables `vaultline` reads. */
export const ENV = {
  /** The vault's base URL; overrides the stored default connection. */
  url: 'VAULTLINE_URL',
  /** The API key; overrides the keychain. Never passed on to `run`'s child. */
  apiKey: 'VAULTLINE_API_KEY',
  /** The vault login to act for (on vaults where you sign in: the login that signs in); overrides the stored default connection. */
  login: 'VAULTLINE_LOGIN',
  /** The password, on vaults where you sign in with one (TeamPass 3); overrides the keychain. Never passed on to `run`'s child. */
  password: 'VAULTLINE_PASSWORD',
  /** A personal access token, instead of the password and API key where the vault allows them; overrides the keychain. Never passed on. */
  personalAccessToken: 'VAULTLINE_PERSONAL_ACCESS_TOKEN',
  /** An OIDC identity token (a CI job's, a pod's) exchanged for a short-lived key, with `VAULTLINE_URL` and no API key. Never passed on to `run`'s child. */
  oidcToken: 'VAULTLINE_OIDC_TOKEN',
  /** A file holding the OIDC identity token, read anew by each command (a Kubernetes projected token rotates). */
  oidcTokenFile: 'VAULTLINE_OIDC_TOKEN_FILE',
  /** The vault's trust policy to exchange the OIDC token under; the one matching the token when unset. */
  oidcPolicy: 'VAULTLINE_OIDC_POLICY',
  /** Where session tokens, and the fallback values of `--cache-max-age`, are cached when they are not kept in the keychain. */
  cacheDir: 'VAULTLINE_CACHE_DIR',
  /** `run` and `inject`: keep the resolved values sealed on disk, used when the vault cannot be reached, up to this age (`--cache-max-age`). */
  cacheMaxAge: 'VAULTLINE_CACHE_MAX_AGE',
} as const;

/**
 * The secrets a connection can hold, by the name the keychain and the messages use: the API key,
 * the password, a personal access token. The session token is not one of them: it is derived.
 */
export const SECRET_KINDS = ['api-key', 'password', 'personal-access-token'] as const;

/** One of {@link SECRET_KINDS}. */
export type SecretKind = (typeof SECRET_KINDS)[number];

/** The field of the core's credentials each secret fills. */
export const SECRET_FIELDS = {
  'api-key': 'apiKey',
  password: 'password',
  'personal-access-token': 'personalAccessToken',
} as const satisfies Readonly<Record<SecretKind, CredentialSecret>>;

/** The secret that fills each field of the core's credentials. */
const SECRET_OF_FIELD = {
  apiKey: 'api-key',
  password: 'password',
  personalAccessToken: 'personal-access-token',
} as const satisfies Readonly<Record<CredentialSecret, SecretKind>>;

/** The environment variable of each secret (for the default connection; `_<NAME>` for a named one). */
export const SECRET_VARIABLES: Readonly<Record<SecretKind, string>> = {
  'api-key': ENV.apiKey,
  password: ENV.password,
  'personal-access-token': ENV.personalAccessToken,
};

/** How to say each secret in a sentence. */
export const SECRET_WORDS: Readonly<Record<SecretKind, string>> = {
  'api-key': 'API key',
  password: 'password',
  'personal-access-token': 'personal access token',
};

/**
 * The secrets a way of signing in (the core's `CredentialKind`, what `connect` stores as the
 * connection's `signIn`) needs, by their names here: the core's `CREDENTIAL_SECRETS`.
 *
 * @param kind How the connection signs in.
 * @returns Its secrets.
 */
export const signInSecrets = (kind: CredentialKind): readonly SecretKind[] =>
  CREDENTIAL_SECRETS[kind].map((field) => SECRET_OF_FIELD[field]);

/**
 * Where `connect` keeps the secrets that were typed or piped: the OS keychain; a file sealed with
 * a key of this machine (`secret-file.ts`), for machines without a keychain; or nowhere, and
 * later commands ask for them on a terminal (or read them from the environment).
 */
export const STORES = ['keychain', 'file', 'none'] as const;

/** One of {@link STORES}. */
export type Store = (typeof STORES)[number];

/** The service name of keychain entries. */
export const KEYCHAIN_SERVICE = 'vaultline';

/** The name of the connection used when none is named. */
export const DEFAULT_CONNECTION = 'default';

/** What masked values are replaced with in `run`'s output. */
export const MASK = '<concealed by vaultline>';

/** Values shorter than this are not masked (masking every `1` would garble output). */
export const MIN_MASK_LENGTH = 3;
