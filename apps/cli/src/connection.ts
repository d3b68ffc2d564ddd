/**
 * Which vault a command talks to, as whom, and with what: the named connection from the config
 * file, with `VAULTLINE_URL`, `VAULTLINE_LOGIN` and the secrets' variables overriding the default
 * one (CI needs no `connect`). Secrets come from the environment, else from where `connect` kept
 * them (the keychain, or the sealed secrets file of `secret-file.ts`), else, on a terminal, from
 * the person, asked without echo; never from the config file. The session token waits where the
 * secrets came from (see `token-cache.ts`).
 *
 * @module
 */

import {
  actingLoginOf,
  type CredentialFields,
  type CredentialKind,
  createVaultClient,
  credentialKindOf,
  credentialsFrom,
  type Dialect,
  EXIT,
  isVaultError,
  type Redactor,
  type VaultClient,
} from '@vaultline/protocol';
import { configPath, readConfig } from './config.ts';
import {
  DEFAULT_CONNECTION,
  ENV,
  SECRET_FIELDS,
  SECRET_KINDS,
  SECRET_WORDS,
  type SecretKind,
  type Store,
  signInSecrets,
} from './constants.ts';
import { type CliEnvironment, secretVariable } from './env.ts';
import { CliError } from './errors.ts';
import { rememberedKeyAnswer, rememberKeyAnswer } from './key-memory.ts';
import { keychainAccount, readSecret } from './keychain.ts';
import { hasOidcToken, oidcApiKey } from './oidc-key.ts';
import { askSecret, canAsk } from './prompt.ts';
import { machineKeyPath, readSecretsFile } from './secret-file.ts';
import { rememberedServer, rememberServer } from './server-memory.ts';
import { type ConnectionTokenCache, fileTokenCache, keychainTokenCache } from './token-cache.ts';

/** An open connection. */
export interface Connection {
  /** Its name. */
  readonly name: string;
  /** The vault's base URL. */
  readonly url: string;
  /** The login to act for (and, where the vault signs in, the one that signs in), when known. */
  readonly login: string | undefined;
  /** The client. */
  readonly client: VaultClient;
  /** Removes the secrets and any session token from text. */
  readonly redact: Redactor;
  /** The connection's secrets as one string: what the cached values of `--cache-max-age` are sealed with. */
  readonly credentials: string;
  /** Where the session token is kept between commands. */
  readonly tokenCache: ConnectionTokenCache | undefined;
  /** When the key stops working, for a key exchanged for an OIDC token (ms since the epoch). */
  readonly expiresAt?: number | undefined;
  /**
   * The login a command acts for, by the core's one rule (`identity().login`): the signed-in
   * user's where the vault signs in (TeamPass 3), else the configured one.
   *
   * @param what What needs it, for the message.
   * @returns The login.
   * @throws {CliError} `no_login` (exit 4) when there is none.
   */
  actingLogin(what: string): Promise<string>;
  /**
   * Turns a failure into one that says what to do on this connection (which variables, which
   * `connect`), where the vault's error alone would not.
   *
   * @param error The failure.
   * @returns The error to throw.
   */
  explain(error: unknown): Promise<unknown>;
  /** Ends the client, keeping the session token for the next command. */
  close(): Promise<void>;
}

/** What {@link openConnection} reports besides the connection. */
export interface OpenOptions {
  /** Told about a session token cache that cannot be used. */
  warn?: ((message: string) => void) | undefined;
  /** Whether missing secrets may be asked for on a terminal (yes, unless false). */
  ask?: boolean | undefined;
}

/**
 * Opens a connection. Nothing is sent until the first call.
 *
 * @param env The environment.
 * @param name The connection's name; the default one when absent.
 * @param options Where warnings go.
 * @returns The connection.
 * @throws {CliError} `no_connection` or `no_key` (exit 4).
 */
export async function openConnection(
  env: CliEnvironment,
  name?: string,
  options: OpenOptions = {},
): Promise<Connection> {
  const chosen = name ?? DEFAULT_CONNECTION;
  const isDefault = chosen === DEFAULT_CONNECTION;
  const useEnv = isDefault && env.url !== undefined;
  const credentials: CredentialFields = {};
  for (const kind of SECRET_KINDS) {
    const value = env.secretFor(kind, chosen);
    if (value !== undefined) credentials[SECRET_FIELDS[kind]] = value;
  }
  // A CI job or a pod without a key: its identity token is exchanged for one, which may say its login.
  let oidcLogin: string | undefined;
  let expiresAt: number | undefined;
  if (isDefault && env.url !== undefined && Object.keys(credentials).length === 0 && hasOidcToken(env)) {
    const exchanged = await oidcApiKey(env, env.url, options.warn);
    credentials.apiKey = exchanged.apiKey;
    oidcLogin = exchanged.login;
    expiresAt = exchanged.expiresAt;
  }
  const fromEnv = Object.keys(credentials).length > 0;
  const config = useEnv && fromEnv ? { connections: {} } : await readConfig(env.configDir);
  const stored = useEnv ? undefined : config.connections[chosen];
  const url = useEnv ? env.url : stored?.url;
  if (url === undefined) {
    throw new CliError(
      'no_connection',
      isDefault
        ? `No vault connection: run vaultline connect <url> --login <login>, or set ${ENV.url} (and ${ENV.apiKey}, ${ENV.login}; ${ENV.password} where the vault signs in with a password).`
        : `No connection named ${JSON.stringify(chosen)} in ${configPath(env.configDir)}: run vaultline connect <url> --name ${chosen}.`,
      EXIT.auth,
    );
  }
  const login = (isDefault ? env.login : undefined) ?? oidcLogin ?? (useEnv ? undefined : stored?.login);
  // The way connect signed in says which secrets to look for; without it, what the environment
  // has, by the core's rule.
  const signIn: CredentialKind = stored?.signIn ?? credentialKindOf({ ...credentials, login });
  const store: Store = stored?.store ?? 'keychain';
  const fromKeychain = new Set<SecretKind>();
  let keychainError: CliError | undefined;
  const lacking = () =>
    signInSecrets(signIn).filter((kind) => credentials[SECRET_FIELDS[kind]] === undefined);
  if (store === 'keychain') {
    for (const kind of lacking()) {
      if (keychainError) break;
      try {
        const value = await readSecret(keychainAccount(url, login, kind));
        if (value) {
          credentials[SECRET_FIELDS[kind]] = value;
          fromKeychain.add(kind);
        }
      } catch (error) {
        if (!(error instanceof CliError && error.code === 'keychain_unavailable')) throw error;
        keychainError = error;
      }
    }
  } else if (store === 'file' && lacking().length > 0) {
    const read = await readSecretsFile(env, url, login);
    if (read.status === 'ok') {
      for (const kind of lacking()) {
        const field = SECRET_FIELDS[kind];
        if (read.credentials[field] !== undefined) credentials[field] = read.credentials[field];
      }
    } else if (read.status === 'unreadable') {
      keychainError = new CliError(
        'secrets_file_unreadable',
        `The secrets file ${read.path} does not open here (written on another machine, its key ${machineKeyPath(env)} replaced, or changed).`,
        EXIT.auth,
      );
    }
  }
  // What is still missing is asked for on a terminal: a connection that keeps no secrets
  // (--store none), or whose keychain or file failed. Never in a script: it gets the variables.
  if (lacking().length > 0 && options.ask !== false && canAsk()) {
    for (const kind of lacking())
      credentials[SECRET_FIELDS[kind]] = await askSecret(
        secretQuestion(kind, signIn, url, login),
        SECRET_WORDS[kind],
      );
  }
  const sealing = sealingCredentials(credentials);
  // Enough to sign in somewhere: the API key (legacy), or what signs in (TeamPass 3).
  const usable = sealing !== undefined || (signIn === 'api-key' && credentials.apiKey !== undefined);
  if (!usable) {
    throw missingSecrets({
      name: chosen,
      url,
      login,
      signIn,
      missing: lacking(),
      stored: stored !== undefined,
      store,
      keychainError,
    });
  }

  const signInFromKeychain = fromKeychain.has('password') || fromKeychain.has('personal-access-token');
  let client: VaultClient | undefined;
  const tokenCache: ConnectionTokenCache | undefined =
    sealing === undefined || login === undefined
      ? undefined
      : signInFromKeychain
        ? keychainTokenCache(keychainAccount(url, login, 'session-token'))
        : fileTokenCache({
            dir: env.cacheDir,
            url,
            login,
            credentials: sealing,
            dialect: async () => (client ? (await client.capabilities()).dialect : undefined),
            warn: options.warn,
          });
  // From environment variables only, what an earlier process detected (no identification again);
  // a Vaultline server whose identification is no longer passed back is detected (and kept) anew.
  const memory = stored === undefined ? await rememberedServer(env.cacheDir, url) : undefined;
  const remembered =
    memory?.server === 'vaultline' && memory.identification === undefined ? undefined : memory;
  const dialect: Dialect | 'auto' =
    stored?.dialect ?? remembered?.dialect ?? (await tokenCache?.dialect()) ?? 'auto';
  let detected: Promise<void> | undefined;
  // What a Vaultline server said of the key (whom it acts as), sealed with it.
  const { apiKey } = credentials;
  const keyAnswer = apiKey === undefined ? undefined : await rememberedKeyAnswer(env.cacheDir, url, apiKey);
  let answered: Promise<void> | undefined;
  try {
    client = createVaultClient({
      baseUrl: url,
      // The way it signs in, or what the secrets found can do (a connection's own way may lack them).
      auth: credentialsFrom({ ...credentials, login }, lacking().length === 0 ? signIn : undefined),
      dialect,
      // What connect learned of the server, with the dialect it was learned with.
      server:
        stored?.dialect !== undefined && dialect === stored.dialect
          ? stored.server
          : remembered?.dialect === dialect
            ? remembered.server
            : undefined,
      identification:
        stored === undefined && remembered?.dialect === dialect ? remembered.identification : undefined,
      onDetected:
        stored === undefined
          ? (found) => {
              detected = rememberServer(env.cacheDir, url, found);
            }
          : undefined,
      // The user said so for this connection (connect --key-in-url).
      legacy: {
        keyTransport: stored?.keyTransport,
        keyAnswer,
        onKeyAnswer:
          apiKey === undefined
            ? undefined
            : (answer) => {
                answered = rememberKeyAnswer(env.cacheDir, url, apiKey, answer);
              },
      },
      teampass3: { tokenCache },
    });
  } catch (error) {
    throw new CliError('invalid_connection', (error as Error).message, EXIT.auth, { cause: error });
  }
  const opened = client;
  const context: FailureContext = { name: chosen, url, login, signedIn: sealing !== undefined };
  return {
    name: chosen,
    url: opened.baseUrl,
    login,
    client: opened,
    redact: opened.redact,
    credentials: JSON.stringify(SECRET_KINDS.map((kind) => credentials[SECRET_FIELDS[kind]] ?? null)),
    tokenCache,
    expiresAt,
    async actingLogin(what) {
      const acting = await actingLoginOf(opened);
      if (acting !== undefined) return acting;
      throw new CliError(
        'no_login',
        `${what} needs a vault login: set ${ENV.login}, or run vaultline connect ${opened.baseUrl} --login <login>.`,
        EXIT.auth,
      );
    },
    explain: (error) => explainFailure(error, opened, context),
    async close() {
      await Promise.all([detected, answered]);
      await opened.dispose({ signOut: false }).catch(() => undefined);
    },
  };
}

/**
 * How a secret is asked for on a terminal (by `connect`, and by later commands that have none).
 *
 * @param kind Which secret.
 * @param signIn How the connection signs in.
 * @param url The vault's URL.
 * @param login The login.
 * @returns The question.
 */
export function secretQuestion(
  kind: SecretKind,
  signIn: CredentialKind,
  url: string,
  login: string | undefined,
): string {
  const who = login ?? 'you';
  return kind === 'password'
    ? `Password of ${who} at ${url}: `
    : kind === 'api-key'
      ? signIn === 'password'
        ? `API key of ${who} (from the profile page): `
        : `API key for ${url}: `
      : `Personal access token of ${who}: `;
}

/**
 * The credentials a session token is sealed with: those that sign in (the personal access token,
 * or the password with the API key), as the core picks them.
 *
 * @param credentials The connection's credentials.
 * @returns The sealing credentials, or `undefined` when nothing signs in.
 */
export function sealingCredentials(credentials: CredentialFields): CredentialFields | undefined {
  const { personalAccessToken, password, apiKey } = credentials;
  if (personalAccessToken) return { personalAccessToken };
  return password && apiKey ? { password, apiKey } : undefined;
}

/** What a failure's words name. */
export interface FailureContext {
  /** The connection's name (for its variables). */
  readonly name: string;
  /** The vault's URL. */
  readonly url: string;
  /** The login. */
  readonly login: string | undefined;
  /** Whether a password or personal access token was given. */
  readonly signedIn: boolean;
}

/**
 * Adds what to do to a sign-in failure, on a vault where one signs in (capabilities
 * `credentials: 'password'`): which variables to check, or to set when they were missing; and to
 * a refusal, on a vault that enforces the user's rights (`enforcedRights`): who sets them. Other
 * failures are left as they are (the CLI's error table words them).
 *
 * @param error The failure.
 * @param client The client, for its capabilities.
 * @param context The connection.
 * @returns The error to throw.
 */
export async function explainFailure(
  error: unknown,
  client: VaultClient,
  context: FailureContext,
): Promise<unknown> {
  // A reason other than a refused sign-in (a revoked key, a locked account, HTTPS required) has
  // words of its own (the error table's); a refused sign-in and a refused right get these.
  if (
    !isVaultError(error, 'unauthorized', 'forbidden') ||
    (error.reason !== undefined && error.reason !== 'sign_in_refused')
  )
    return error;
  const capabilities = await client.capabilities().catch(() => undefined);
  if (error.code === 'forbidden') {
    if (!capabilities?.enforcedRights) return error;
    return new CliError(
      'forbidden',
      `${error.message} The vault enforces the rights of ${context.login ?? 'the signed-in user'}: a folder right or an API permission (create, read, update, delete) does not allow this; an administrator sets them.`,
      EXIT.auth,
      { cause: error },
    );
  }
  if (capabilities?.credentials !== 'password') return error;
  const variable = (kind: SecretKind) => secretVariable(kind, context.name);
  const connect = `vaultline connect ${context.url} --login ${context.login ?? '<login>'}${context.name === DEFAULT_CONNECTION ? '' : ` --name ${context.name}`}`;
  const hint = context.signedIn
    ? `Signing in was refused: check the login${context.name === DEFAULT_CONNECTION ? ` (${ENV.login})` : ''}, the password (${variable('password')}) and the API key (${variable('api-key')}), or the personal access token (${variable('personal-access-token')}), or run ${connect} again. The vault answers the same when the user's API access is switched off: an administrator turns it on.`
    : `This vault signs in with a password: set ${variable('password')} (with ${variable('api-key')}) or ${variable('personal-access-token')}, or run ${connect}, which asks for them.`;
  return new CliError('unauthorized', `${error.message} ${hint}`, EXIT.auth, { cause: error });
}

function missingSecrets(options: {
  name: string;
  url: string;
  login: string | undefined;
  signIn: CredentialKind;
  missing: readonly SecretKind[];
  stored: boolean;
  store: Store;
  keychainError: CliError | undefined;
}): CliError {
  const { name, url, signIn, missing, keychainError } = options;
  const variables = missing.map((kind) => secretVariable(kind, name));
  const words = missing.map((kind) => SECRET_WORDS[kind]).join(' or ');
  const connectFlags =
    signIn === 'api-key' ? '--key-stdin' : signIn === 'password' ? '--password-stdin' : '--pat-stdin';
  const connect = `vaultline connect ${url} --login ${options.login ?? '<login>'}${name === DEFAULT_CONNECTION ? '' : ` --name ${name}`} ${connectFlags}`;
  // A connection that says nothing of how it signs in (set up from the environment): name both ways.
  const also =
    !options.stored && signIn === 'api-key'
      ? ` (and ${secretVariable('password', name)} where the vault signs in with a password, or ${secretVariable('personal-access-token', name)})`
      : '';
  const code = missing.length === 1 && missing[0] === 'api-key' ? 'no_key' : 'no_credentials';
  const label = `No ${words}`;
  if (options.store === 'none') {
    return new CliError(
      code,
      `${label} for ${url}: this connection keeps no secrets (connect --store none), so they are asked for on a terminal; here there is none. Set ${variables.join(' and ')}${also}, or run ${connect} --store file (or keychain) to keep them.`,
      EXIT.auth,
    );
  }
  if (keychainError) {
    return new CliError(
      code,
      `${label} for ${url}. ${keychainError.message} Set ${variables.join(' and ')}${also} in the environment instead.`,
      EXIT.auth,
      { cause: keychainError },
    );
  }
  return new CliError(
    code,
    `${label} for ${url} in the ${options.store === 'file' ? 'secrets file' : 'keychain'}: run ${connect}, or set ${variables.join(' and ')}${also}.`,
    EXIT.auth,
  );
}
