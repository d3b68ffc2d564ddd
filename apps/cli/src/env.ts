/**
 * The environment, read once: what `vaultline` reads from it, and what `run` passes on.
 *
 * @module
 */

import { homedir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CONNECTION, ENV, SECRET_KINDS, SECRET_VARIABLES, type SecretKind } from './constants.ts';

/** What the CLI takes from the environment. */
export interface CliEnvironment {
  /** `VAULTLINE_URL`, when set and not empty. */
  readonly url: string | undefined;
  /** `VAULTLINE_API_KEY`, when set and not empty: the default connection's key. */
  readonly apiKey: string | undefined;
  /**
   * Every secret in the environment (`VAULTLINE_API_KEY`, `VAULTLINE_PASSWORD`,
   * `VAULTLINE_PERSONAL_ACCESS_TOKEN`, and their `_<NAME>` forms): redacted from all output.
   */
  readonly secrets: readonly string[];
  /**
   * The key of a connection from the environment: `VAULTLINE_API_KEY` for the default one,
   * `VAULTLINE_API_KEY_<NAME>` (upper case, other characters as `_`) for a named one.
   *
   * @param name The connection's name.
   * @returns The key, when set.
   */
  keyFor(name: string): string | undefined;
  /**
   * A secret of a connection from the environment (see {@link secretVariable}).
   *
   * @param kind Which secret.
   * @param name The connection's name.
   * @returns The secret, when set.
   */
  secretFor(kind: SecretKind, name: string): string | undefined;
  /** `VAULTLINE_LOGIN`, when set and not empty. */
  readonly login: string | undefined;
  /** `VAULTLINE_OIDC_TOKEN`, when set and not empty: an identity token to exchange for a key. */
  readonly oidcToken: string | undefined;
  /** `VAULTLINE_OIDC_TOKEN_FILE`, when set and not empty: where the identity token is. */
  readonly oidcTokenFile: string | undefined;
  /** `VAULTLINE_OIDC_POLICY`, when set and not empty: the trust policy to exchange under. */
  readonly oidcPolicy: string | undefined;
  /** Where the config file lives: `$XDG_CONFIG_HOME/vaultline`, or `~/.config/vaultline`. */
  readonly configDir: string;
  /**
   * Where session tokens are cached when the keychain does not keep them: `VAULTLINE_CACHE_DIR`;
   * else `$XDG_RUNTIME_DIR/vaultline` (a per-user tmpfs, emptied at logout); else
   * `$XDG_CACHE_HOME/vaultline` or `~/.cache/vaultline`.
   */
  readonly cacheDir: string;
  /**
   * Where the key of the secrets file lives (`--store file`): `$XDG_STATE_HOME/vaultline`, or
   * `~/.local/state/vaultline`: apart from the config directory, which people copy and share.
   */
  readonly stateDir: string;
  /** The whole environment, for `run`'s child. */
  readonly all: Readonly<Record<string, string>>;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/**
 * Reads the environment.
 *
 * @param env The environment; the process's by default.
 * @returns What the CLI uses of it.
 */
export function readEnvironment(env: NodeJS.ProcessEnv = process.env): CliEnvironment {
  const all: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) all[name] = value;
  const xdg = nonEmpty(env.XDG_CONFIG_HOME);
  const secretFor = (kind: SecretKind, name: string): string | undefined =>
    nonEmpty(env[secretVariable(kind, name)]);
  const secrets = Object.entries(env)
    .filter(([variable, value]) => isSecretVariable(variable) && value !== undefined && value !== '')
    .map(([, value]) => value as string);
  return {
    url: nonEmpty(env[ENV.url]),
    apiKey: nonEmpty(env[ENV.apiKey]),
    secrets,
    keyFor: (name) => secretFor('api-key', name),
    secretFor,
    login: nonEmpty(env[ENV.login]),
    oidcToken: nonEmpty(env[ENV.oidcToken]),
    oidcTokenFile: nonEmpty(env[ENV.oidcTokenFile]),
    oidcPolicy: nonEmpty(env[ENV.oidcPolicy]),
    configDir: join(xdg ?? join(homedir(), '.config'), 'vaultline'),
    cacheDir: cacheDirOf(env),
    stateDir: stateDirOf(env),
    all,
  };
}

function stateDirOf(env: NodeJS.ProcessEnv): string {
  const state = nonEmpty(env.XDG_STATE_HOME);
  if (state !== undefined) return join(state, 'vaultline');
  const local = process.platform === 'win32' ? nonEmpty(env.LOCALAPPDATA) : undefined;
  return local !== undefined
    ? join(local, 'vaultline', 'state')
    : join(homedir(), '.local', 'state', 'vaultline');
}

function cacheDirOf(env: NodeJS.ProcessEnv): string {
  const chosen = nonEmpty(env[ENV.cacheDir]);
  if (chosen !== undefined) return chosen;
  const runtime = nonEmpty(env.XDG_RUNTIME_DIR);
  if (runtime !== undefined) return join(runtime, 'vaultline');
  const cache = nonEmpty(env.XDG_CACHE_HOME);
  if (cache !== undefined) return join(cache, 'vaultline');
  const local = process.platform === 'win32' ? nonEmpty(env.LOCALAPPDATA) : undefined;
  return local !== undefined ? join(local, 'vaultline', 'cache') : join(homedir(), '.cache', 'vaultline');
}

/**
 * The environment variable that holds a secret of a connection: `VAULTLINE_API_KEY`,
 * `VAULTLINE_PASSWORD` or `VAULTLINE_PERSONAL_ACCESS_TOKEN` for the default connection, with
 * `_<NAME>` (upper case, other characters as `_`) for a named one.
 *
 * @param kind Which secret.
 * @param name The connection's name.
 * @returns The variable's name.
 */
export function secretVariable(kind: SecretKind, name: string): string {
  const base = SECRET_VARIABLES[kind];
  return name === DEFAULT_CONNECTION ? base : `${base}_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/**
 * The environment variable that holds a named connection's key: `VAULTLINE_API_KEY_<NAME>`.
 *
 * @param name The connection's name.
 * @returns The variable's name.
 */
export function keyVariable(name: string): string {
  return secretVariable('api-key', name);
}

/**
 * Whether a variable holds one of the CLI's secrets (of any connection): those are redacted from
 * output and never passed on to `run`'s command.
 *
 * @param variable The variable's name.
 * @returns Whether it is a secret's.
 */
export function isSecretVariable(variable: string): boolean {
  // Any variable that starts like one (VAULTLINE_API_KEY2 too): better kept back than leaked.
  if (variable === ENV.oidcToken) return true;
  return SECRET_KINDS.some((kind) => variable.startsWith(SECRET_VARIABLES[kind]));
}
