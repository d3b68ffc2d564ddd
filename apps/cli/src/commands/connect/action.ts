/**
 * What runs for the commands declared in ./command.ts, loaded only when one of them runs.
 *
 * @module
 */

import { rm } from 'node:fs/promises';
import {
  type CredentialFields,
  type CredentialKind,
  type CredentialsNeeded,
  createVaultClient,
  credentialsFrom,
  type DialectDetection,
  detectDialect,
  EXIT,
  memoryTokenCache,
  teampassCapabilities,
  type VaultClient,
} from '@vaultline/protocol';
import { configPath, readConfig, writeConfig } from '../../config.ts';
import { explainFailure, openConnection, sealingCredentials, secretQuestion } from '../../connection.ts';
import {
  DEFAULT_CONNECTION,
  SECRET_FIELDS,
  SECRET_KINDS,
  SECRET_WORDS,
  type SecretKind,
  type Store,
  signInSecrets,
} from '../../constants.ts';
import { type CommandContext, warnTo } from '../../context.ts';
import { type CliEnvironment, secretVariable } from '../../env.ts';
import { CliError, toCliError } from '../../errors.ts';
import { deleteSecret, keychainAccount, probeKeychain, storeSecret } from '../../keychain.ts';
import type { Output } from '../../output.ts';
import { askChoice, askSecret, canAsk, readStdinSecrets } from '../../prompt.ts';
import { machineKeyPath, removeSecretsFile, secretsDir, writeSecretsFile } from '../../secret-file.ts';
import { withSpinner } from '../../spinner.ts';
import { fileTokenCache, keychainTokenCache, tokenFilePath } from '../../token-cache.ts';

/** The options of `connect`. */
interface ConnectOptions {
  login: string;
  name: string;
  keyStdin?: boolean;
  passwordStdin?: boolean;
  patStdin?: boolean;
  store?: Store;
  keyInUrl?: boolean;
}

/** The flag that reads each secret from stdin. */
const STDIN_FLAGS: Readonly<Record<SecretKind, string>> = {
  'api-key': '--key-stdin',
  password: '--password-stdin',
  'personal-access-token': '--pat-stdin',
};

const fromStdin = (options: ConnectOptions, kind: SecretKind): boolean =>
  kind === 'api-key'
    ? options.keyStdin === true
    : kind === 'password'
      ? options.passwordStdin === true
      : options.patStdin === true;

const listed = (kinds: readonly SecretKind[]) => kinds.map((kind) => SECRET_WORDS[kind]).join(' and the ');

/** How to sign in, from what the vault needs and what was offered. */
function chooseSignIn(
  needs: CredentialsNeeded,
  options: ConnectOptions,
  env: CliEnvironment,
  url: string,
): CredentialKind {
  if (options.patStdin && (options.passwordStdin || options.keyStdin))
    throw new CliError(
      'usage',
      'A personal access token signs in alone: --pat-stdin goes without --password-stdin and --key-stdin.',
      EXIT.usage,
    );
  if (needs === 'api-key') {
    const extra = (['password', 'personal-access-token'] as const).filter((kind) => fromStdin(options, kind));
    if (extra.length > 0)
      throw new CliError(
        'usage',
        `${url} signs in with an API key alone: drop ${extra.map((kind) => STDIN_FLAGS[kind]).join(' and ')}.`,
        EXIT.usage,
      );
    return 'api-key';
  }
  const patOffered =
    options.patStdin === true ||
    (!options.passwordStdin &&
      !options.keyStdin &&
      env.secretFor('personal-access-token', options.name) !== undefined);
  return patOffered ? 'personal-access-token' : 'password';
}

/** The secrets, and which of them were typed or piped (those are stored in the keychain). */
async function gatherSecrets(
  signIn: CredentialKind,
  options: ConnectOptions,
  env: CliEnvironment,
  url: string,
): Promise<{ credentials: CredentialFields; given: SecretKind[] }> {
  const kinds = signInSecrets(signIn);
  const credentials: CredentialFields = { login: options.login };
  const given: SecretKind[] = [];
  const question = (kind: SecretKind) => secretQuestion(kind, signIn, url, options.login);
  const piped = kinds.filter((kind) => fromStdin(options, kind));
  if (piped.length > 0) {
    if (canAsk()) {
      for (const kind of piped)
        credentials[SECRET_FIELDS[kind]] = await askSecret(question(kind), SECRET_WORDS[kind]);
    } else {
      const values = await readStdinSecrets(piped.map((kind) => SECRET_WORDS[kind]));
      piped.forEach((kind, index) => {
        credentials[SECRET_FIELDS[kind]] = values[index]!;
      });
    }
    given.push(...piped);
  }
  const missing: SecretKind[] = [];
  for (const kind of kinds) {
    const field = SECRET_FIELDS[kind];
    if (credentials[field] !== undefined) continue;
    const value = env.secretFor(kind, options.name);
    if (value !== undefined) credentials[field] = value;
    else if (canAsk()) {
      credentials[field] = await askSecret(question(kind), SECRET_WORDS[kind]);
      given.push(kind);
    } else missing.push(kind);
  }
  if (missing.length > 0) {
    const flags = missing.map((kind) => STDIN_FLAGS[kind]).join(' ');
    const variables = missing.map((kind) => secretVariable(kind, options.name)).join(' and ');
    throw new CliError(
      missing.length === 1 && missing[0] === 'api-key' ? 'no_key' : 'no_credentials',
      `No ${listed(missing)}: pipe ${missing.length === 1 ? 'it' : 'them, one per line,'} to vaultline connect ${flags} (stored in the OS keychain, or where --store says), set ${variables}, or run connect in a terminal to be asked.`,
      EXIT.auth,
    );
  }
  return { credentials, given };
}

/**
 * Where the secrets that will be typed or piped are kept: `--store`, else the OS keychain when
 * one works here. Without one, a person at a terminal is told so and chooses (a sealed file, or
 * asked on each command); a script is told before anything is read or sent, with its options.
 */
async function chooseStore(
  options: ConnectOptions,
  env: CliEnvironment,
  output: Output,
  kinds: readonly SecretKind[],
): Promise<Store> {
  if (options.store === 'file' || options.store === 'none') return options.store;
  const problem = await probeKeychain();
  if (problem === undefined) return 'keychain';
  const what = listed(kinds);
  const variables = kinds.map((kind) => secretVariable(kind, options.name)).join(' and ');
  const file = `--store file (a file in ${secretsDir(env)}, sealed with a key of this machine kept in ${machineKeyPath(env)}: the file alone shows nothing, but programs running as you can read both)`;
  const none = `--store none (kept nowhere: each command asks for them on a terminal)`;
  if (options.store === 'keychain' || !canAsk()) {
    throw new CliError(
      problem.code,
      `${problem.message} Nothing was sent. Choose where the ${what} go: ${file}, or ${none}; or set ${variables} in the environment, and connect stores nothing.`,
      EXIT.auth,
      { cause: problem },
    );
  }
  output.err(problem.message);
  output.err(
    [
      `Where should the ${what} be kept?`,
      `  1) in a file sealed with a key of this machine: the file (in ${secretsDir(env)}) alone shows nothing; the key is in ${machineKeyPath(env)}, and programs running as you can read both`,
      `  2) nowhere: each command asks for ${kinds.length === 1 ? 'it' : 'them'} on a terminal (scripts set ${variables})`,
      `(--store file or --store none chooses without asking.)`,
    ].join('\n'),
  );
  return (await askChoice('Choose 1 or 2: ', ['1', '2'])) === '1' ? 'file' : 'none';
}

/**
 * Forgets what was kept for a vault and login: the session token (keychain entry and file) and,
 * with `secrets`, the API key, password and personal access token in the keychain and the
 * secrets file.
 */
async function forgetKept(
  env: CliEnvironment,
  target: { url: string; login?: string | undefined },
  secrets: boolean,
): Promise<{ removed: boolean; failure: unknown }> {
  let removed = false;
  let failure: unknown;
  const entries = secrets ? ([...SECRET_KINDS, 'session-token'] as const) : (['session-token'] as const);
  for (const entry of entries) {
    try {
      removed = (await deleteSecret(keychainAccount(target.url, target.login, entry))) || removed;
    } catch (error) {
      failure ??= error;
    }
  }
  if (secrets)
    removed = (await removeSecretsFile(env, target.url, target.login).catch(() => false)) || removed;
  if (target.login !== undefined)
    await rm(tokenFilePath(env.cacheDir, target.url, target.login), { force: true }).catch(() => undefined);
  return { removed, failure };
}

function checkUrl(url: string): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed?.protocol !== 'http:' && parsed?.protocol !== 'https:')
    throw new CliError(
      'invalid_url',
      `Expected the vault's base URL (http:// or https://), received ${JSON.stringify(url.slice(0, 80))}.`,
      EXIT.usage,
    );
}

/** What the connect flow has learnt so far: each step reads what earlier ones settled and adds its part. */
interface ConnectFlow {
  readonly url: string;
  readonly options: ConnectOptions;
  readonly env: CliEnvironment;
  readonly output: Output;
  /** The session token signing in once leaves, kept by the last steps. */
  readonly verification: ReturnType<typeof memoryTokenCache>;
  /** Which API the vault speaks (a detected one). */
  detection?: Extract<DialectDetection, { detected: true }>;
  signIn?: CredentialKind;
  /** Where typed or piped secrets go: `--store`, else the keychain unless a step chooses. */
  store: Store;
  /** The login with the secrets: piped, typed or from the environment. */
  credentials?: CredentialFields;
  /** The secrets typed or piped (the ones kept); the others come from the environment. */
  given?: SecretKind[];
  /** The client that signed in once. */
  client?: VaultClient;
  /** The secrets now in the keychain. */
  stored: SecretKind[];
  /** Why the keychain refused one, reported once all else is done. */
  keychainError?: CliError;
}

/** One step of `connect`: what it settles, when it applies, and how (asking, checking, storing). */
interface ConnectStep {
  /** What it asks for or settles. */
  readonly settles: string;
  /** When it applies; always without. */
  readonly when?: (flow: ConnectFlow) => boolean;
  /** Asks or checks, and keeps what it settles in the flow (or stores it). */
  readonly run: (flow: ConnectFlow) => Promise<void> | void;
}

/** The secrets to be typed or piped here (not read from the environment). */
const toGive = (flow: ConnectFlow): SecretKind[] =>
  signInSecrets(flow.signIn!).filter(
    (kind) => fromStdin(flow.options, kind) || flow.env.secretFor(kind, flow.options.name) === undefined,
  );

/** Signs in once with what was given, and says what it could read; a failure keeps nothing. */
async function check(flow: ConnectFlow): Promise<void> {
  const { url, output, options, detection } = flow;
  const credentials = flow.credentials!;
  let client: VaultClient;
  try {
    client = createVaultClient({
      baseUrl: url,
      auth: credentialsFrom(credentials, flow.signIn),
      dialect: detection!.dialect,
      server: detection!.capabilities.server,
      legacy: { keyTransport: options.keyInUrl ? 'query' : undefined },
      teampass3: { tokenCache: flow.verification },
    });
  } catch (error) {
    throw new CliError('invalid_url', toCliError(error).message, EXIT.usage);
  }
  const failureContext = {
    name: options.name,
    url: client.baseUrl,
    login: options.login,
    signedIn: sealingCredentials(credentials) !== undefined,
  };
  let folders: number;
  try {
    folders = (await withSpinner(`Checking ${client.baseUrl}…`, () => client.folders.list())).length;
  } catch (error) {
    // Nothing is kept: a session that was opened is closed.
    await client.dispose().catch(() => undefined);
    const failure = toCliError(await explainFailure(error, client, failureContext));
    const message =
      failure.code === 'unknown_login'
        ? `The vault has no user ${JSON.stringify(options.login)}.`
        : failure.message;
    throw new CliError(
      failure.code,
      client.redact(message),
      failure.exitCode === EXIT.reference ? EXIT.auth : failure.exitCode,
    );
  }
  if (client.baseUrl !== url.replace(/\/+$/, '')) {
    output.err(
      `Read ${url} as the vault's base URL ${client.baseUrl} (the API is under ${client.baseUrl}/api/index.php).`,
    );
  }
  output.err(`Connected to ${client.baseUrl} as ${options.login} (${folders} folders readable).`);
  flow.client = client;
}

/** Keeps the typed or piped secrets where the flow's store says. */
async function keepSecrets(flow: ConnectFlow): Promise<void> {
  const { env, output, options, store } = flow;
  const credentials = flow.credentials!;
  const given = flow.given!;
  const target = { url: flow.client!.baseUrl, login: options.login };
  if (store === 'keychain') {
    for (const kind of given) {
      try {
        await storeSecret(keychainAccount(target.url, target.login, kind), credentials[SECRET_FIELDS[kind]]!);
        flow.stored.push(kind);
      } catch (error) {
        flow.keychainError = toCliError(error);
        break;
      }
    }
    if (flow.stored.length > 0) output.err(`Stored the ${listed(flow.stored)} in the OS keychain.`);
  } else if (store === 'file' && given.length > 0) {
    const kept: CredentialFields = {};
    for (const kind of given) kept[SECRET_FIELDS[kind]] = credentials[SECRET_FIELDS[kind]]!;
    const path = await writeSecretsFile(env, target.url, target.login, kept);
    output.err(
      `Stored the ${listed(given)} in ${path}, sealed (AES-256-GCM) with the key in ${machineKeyPath(env)}: the file alone shows nothing; programs running as you can read both.`,
    );
  } else if (given.length > 0) {
    output.err(
      `Did not store the ${listed(given)} (--store none): later commands ask for ${given.length === 1 ? 'it' : 'them'} on a terminal; scripts set ${given.map((kind) => secretVariable(kind, options.name)).join(' and ')}.`,
    );
  }
}

/** The steps of `connect`, in order; {@link connectAction} runs those that apply. */
const CONNECT_STEPS: readonly ConnectStep[] = [
  {
    settles: 'the URL: an http:// or https:// base URL',
    run: (flow) => checkUrl(flow.url),
  },
  {
    settles: 'which API the vault speaks (one keyless request; --key-in-url says TeamPass 2)',
    run: async (flow) => {
      const { url, options } = flow;
      // The user says the vault is TeamPass 2: its key goes in the URL, as TeamPass requires.
      const detection: DialectDetection = options.keyInUrl
        ? {
            detected: true,
            dialect: 'legacy',
            capabilities: teampassCapabilities('query'),
            evidence: 'you said it is TeamPass 2 (--key-in-url)',
          }
        : await withSpinner(`Looking at ${url}…`, () => detectDialect({ baseUrl: url }));
      if (!detection.detected) {
        // Nothing said which API this is: no key, password or token is asked for or sent.
        throw new CliError(
          'unreachable',
          `Could not tell which API ${url} speaks: ${detection.evidence}. Is the vault running, and is the URL its base URL (the part before /api/index.php)? Nothing was sent with a key. (TeamPass 2 behind a proxy that hides its answers: --key-in-url.)`,
          EXIT.vault,
        );
      }
      flow.detection = detection;
    },
  },
  {
    settles: 'how to sign in: what the vault needs, and what was offered',
    run: (flow) => {
      flow.signIn = chooseSignIn(flow.detection!.capabilities.credentials, flow.options, flow.env, flow.url);
    },
  },
  {
    // Where what will be typed or piped goes, decided before it is asked for.
    settles: 'where the secrets to type or pipe will be kept',
    when: (flow) => toGive(flow).length > 0,
    run: async (flow) => {
      flow.store = await chooseStore(flow.options, flow.env, flow.output, toGive(flow));
    },
  },
  {
    settles: 'the secrets: piped, from the environment, or asked for without echo',
    run: async (flow) => {
      Object.assign(flow, await gatherSecrets(flow.signIn!, flow.options, flow.env, flow.url));
    },
  },
  { settles: 'that they sign in: one check, nothing kept when it fails', run: check },
  {
    settles: 'the connection in the config file (URL, login, dialect; no secrets)',
    run: async (flow) => {
      const { env, options, output } = flow;
      const client = flow.client!;
      const config = await readConfig(env.configDir);
      const previous = config.connections[options.name];
      config.connections[options.name] = {
        url: client.baseUrl,
        login: options.login,
        dialect: flow.detection!.dialect,
        server: flow.detection!.capabilities.server,
        ...(options.keyInUrl ? { keyTransport: 'query' as const } : {}),
        signIn: flow.signIn!,
        ...(flow.store === 'keychain' ? {} : { store: flow.store }),
      };
      await writeConfig(env.configDir, config);
      output.err(
        `Saved connection ${JSON.stringify(options.name)} to ${configPath(env.configDir)} (URL, login and dialect; no secrets).`,
      );
      if (previous && (previous.url !== client.baseUrl || previous.login !== options.login)) {
        await forgetKept(env, previous, true);
      }
    },
  },
  {
    // Connect again with another --store: what the other store kept for this vault and login goes.
    settles: 'what another store kept for this vault and login, forgotten',
    run: async (flow) => {
      const target = { url: flow.client!.baseUrl, login: flow.options.login };
      if (flow.store !== 'file')
        await removeSecretsFile(flow.env, target.url, target.login).catch(() => false);
      if (flow.store !== 'keychain' && flow.given!.length > 0)
        for (const kind of SECRET_KINDS)
          await deleteSecret(keychainAccount(target.url, target.login, kind)).catch(() => false);
    },
  },
  { settles: 'the typed or piped secrets, kept where the store says', run: keepSecrets },
  {
    settles: 'the secrets from the environment: said not to be stored',
    when: (flow) => signInSecrets(flow.signIn!).some((kind) => !flow.given!.includes(kind)),
    run: (flow) => {
      const fromEnv = signInSecrets(flow.signIn!).filter((kind) => !flow.given!.includes(kind));
      flow.output.err(
        `The ${listed(fromEnv)} ${fromEnv.length === 1 ? 'was' : 'were'} not stored: later commands read ${fromEnv.length === 1 ? 'it' : 'them'} from ${fromEnv.map((kind) => secretVariable(kind, flow.options.name)).join(' and ')}.`,
      );
    },
  },
  {
    // The session token waits where the secret that signs in waits.
    settles: 'the session token of the check, kept for the next commands',
    when: (flow) =>
      flow.verification.token !== undefined && sealingCredentials(flow.credentials!) !== undefined,
    run: async (flow) => {
      const { env, options, output, store, stored } = flow;
      const client = flow.client!;
      const inKeychain =
        store === 'keychain' && (stored.includes('password') || stored.includes('personal-access-token'));
      const cache = inKeychain
        ? keychainTokenCache(keychainAccount(client.baseUrl, options.login, 'session-token'))
        : fileTokenCache({
            dir: env.cacheDir,
            url: client.baseUrl,
            login: options.login,
            credentials: sealingCredentials(flow.credentials!)!,
            dialect: async () => flow.detection!.dialect,
            warn: warnTo(output),
          });
      await cache.set(flow.verification.token!);
      output.err(
        inKeychain
          ? 'Kept the session token in the OS keychain, for the next commands.'
          : `Cached the session token in ${env.cacheDir}, sealed with the credentials, for the next commands.`,
      );
    },
  },
  {
    settles: 'the end: the client closed (its session kept), a keychain refusal reported',
    run: async (flow) => {
      await flow.client!.dispose({ signOut: false });
      const { keychainError } = flow;
      if (keychainError) {
        const variables = flow.given!.map((kind) => secretVariable(kind, flow.options.name)).join(' and ');
        throw new CliError(
          keychainError.code,
          `${keychainError.message} Set ${variables} in the environment instead.`,
          keychainError.exitCode,
          { cause: keychainError },
        );
      }
    },
  },
];

/** What `connect` does: the steps that apply, in order. */
export const connectAction = (context: CommandContext) => async (url: string, options: ConnectOptions) => {
  const flow: ConnectFlow = {
    url,
    options,
    env: context.env,
    output: context.output,
    verification: memoryTokenCache(),
    store: options.store ?? 'keychain',
    stored: [],
  };
  for (const step of CONNECT_STEPS) if (step.when?.(flow) ?? true) await step.run(flow);
};

/** What `disconnect` does. */
export const disconnectAction = (context: CommandContext) => async (options: { name: string }) => {
  const { env, output } = context;
  const config = await readConfig(env.configDir);
  const stored = config.connections[options.name];
  const fromEnv = options.name === DEFAULT_CONNECTION && env.url !== undefined;
  if (!stored && !fromEnv)
    throw new CliError('no_connection', `No connection named ${JSON.stringify(options.name)}.`, EXIT.auth);

  // Sign the session out where the credentials that open its cache are at hand.
  let signedOut = false;
  let target: { url: string; login?: string | undefined } | undefined = stored;
  try {
    // Nothing is asked for: without the secrets at hand, the token is forgotten unread.
    const connection = await openConnection(env, options.name, { warn: warnTo(output), ask: false });
    target ??= { url: connection.url, login: connection.login };
    const cache = connection.tokenCache;
    const held = (await cache?.get()) !== undefined;
    await connection.client.dispose();
    signedOut = held && (await cache?.get()) === undefined;
    await cache?.clear();
  } catch {
    // No credentials here (or no vault): the token is forgotten below, unread.
  }
  // A stored connection's secrets go too; a connection from the environment keeps its own.
  const kept = target
    ? await forgetKept(env, target, stored !== undefined)
    : { removed: false, failure: undefined };
  if (stored) {
    delete config.connections[options.name];
    await writeConfig(env.configDir, config);
  }
  if (kept.failure !== undefined) output.err(toCliError(kept.failure).message);
  const what = stored
    ? `Forgot connection ${JSON.stringify(options.name)}${kept.removed ? ' and its secrets' : ''}`
    : `Forgot the session token of ${target?.url ?? env.url}`;
  output.err(`${what}${signedOut ? '; signed its session out' : ''}.`);
};
