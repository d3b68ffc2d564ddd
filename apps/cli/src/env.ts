/**
 * The environment, read once: what `vaultline` reads from it, and what `run` passes on.
 *
 * @module
 */

import { homedir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CONNECTION, ENV } from './constants.ts';

/** What the CLI takes from the environment. */
export interface CliEnvironment {
  /** `VAULTLINE_URL`, when set and not empty. */
  readonly url: string | undefined;
  /** `VAULTLINE_API_KEY`, when set and not empty: the default connection's key. */
  readonly apiKey: string | undefined;
  /** Every API key in the environment (`VAULTLINE_API_KEY`, `VAULTLINE_API_KEY_<NAME>`): redacted from all output. */
  readonly apiKeys: readonly string[];
  /**
   * The key of a connection from the environment: `VAULTLINE_API_KEY` for the default one,
   * `VAULTLINE_API_KEY_<NAME>` (upper case, other characters as `_`) for a named one.
   *
   * @param name The connection's name.
   * @returns The key, when set.
   */
  keyFor(name: string): string | undefined;
  /** `VAULTLINE_LOGIN`, when set and not empty. */
  readonly login: string | undefined;
  /** Where the config file lives: `$XDG_CONFIG_HOME/vaultline`, or `~/.config/vaultline`. */
  readonly configDir: string;
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
  const keyFor = (name: string): string | undefined =>
    name === DEFAULT_CONNECTION ? nonEmpty(env[ENV.apiKey]) : nonEmpty(env[keyVariable(name)]);
  const apiKeys = Object.entries(env)
    .filter(([variable, value]) => variable.startsWith(ENV.apiKey) && value !== undefined && value !== '')
    .map(([, value]) => value as string);
  return {
    url: nonEmpty(env[ENV.url]),
    apiKey: nonEmpty(env[ENV.apiKey]),
    apiKeys,
    keyFor,
    login: nonEmpty(env[ENV.login]),
    configDir: join(xdg ?? join(homedir(), '.config'), 'vaultline'),
    all,
  };
}

/**
 * The environment variable that holds a named connection's key: `VAULTLINE_API_KEY_<NAME>`.
 *
 * @param name The connection's name.
 * @returns The variable's name.
 */
export function keyVariable(name: string): string {
  return name === DEFAULT_CONNECTION
    ? ENV.apiKey
    : `${ENV.apiKey}_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}
