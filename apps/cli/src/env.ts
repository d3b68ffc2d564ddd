/**
 * The environment, read once: what `vaultline` reads from it, and what `run` passes on.
 *
 * @module
 */

import { homedir } from 'node:os';
import { join } from 'node:path';
import { ENV } from './constants.ts';

/** What the CLI takes from the environment. */
export interface CliEnvironment {
  /** `VAULTLINE_URL`, when set and not empty. */
  readonly url: string | undefined;
  /** `VAULTLINE_API_KEY`, when set and not empty. */
  readonly apiKey: string | undefined;
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
  return {
    url: nonEmpty(env[ENV.url]),
    apiKey: nonEmpty(env[ENV.apiKey]),
    login: nonEmpty(env[ENV.login]),
    configDir: join(xdg ?? join(homedir(), '.config'), 'vaultline'),
    all,
  };
}
