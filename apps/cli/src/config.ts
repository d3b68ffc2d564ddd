/**
 * The config file: named connections (URL, login, the dialect and kind of server `connect`
 * detected, how the connection signs in and where its secrets are kept), never a key, password
 * or token. `$XDG_CONFIG_HOME/vaultline/
 * config.json`, mode 0600 in a 0700 directory, written whole through a temporary file.
 *
 * @module
 */

import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CREDENTIAL_KIND_LIST, DIALECTS, EXIT, SERVER_KINDS } from '@vaultline/protocol';
import * as v from 'valibot';

import { STORES } from './constants.ts';
import { CliError } from './errors.ts';

const ConnectionSchema = v.object({
  url: v.pipe(v.string(), v.nonEmpty()),
  login: v.optional(v.string()),
  /** The dialect `connect` detected: passed back to the client so that commands send no probe. */
  dialect: v.optional(v.picklist(DIALECTS)),
  /**
   * The kind of server `connect` found (`teampass-compatible`: TeamPass 2, identified by its
   * answer): passed back to the client, so that commands on TeamPass 2 send no identification.
   */
  server: v.optional(v.picklist(SERVER_KINDS)),
  /** `query` when `connect --key-in-url` said so: the key goes in the URL, unasked. */
  keyTransport: v.optional(v.literal('query')),
  /** How `connect` signed in: which secrets later commands look for. */
  signIn: v.optional(v.picklist(CREDENTIAL_KIND_LIST)),
  /** Where `connect` kept the secrets it was given (the OS keychain when absent). */
  store: v.optional(v.picklist(STORES)),
});

const ConfigSchema = v.object({
  connections: v.optional(v.record(v.string(), ConnectionSchema), {}),
});

/** A stored connection. */
export type StoredConnection = v.InferOutput<typeof ConnectionSchema>;

/** The config file's content. */
export type Config = v.InferOutput<typeof ConfigSchema>;

/**
 * The config file's path.
 *
 * @param configDir The config directory.
 * @returns The path.
 */
export function configPath(configDir: string): string {
  return join(configDir, 'config.json');
}

/**
 * Reads the config; an absent file is an empty config.
 *
 * @param configDir The config directory.
 * @returns The config.
 * @throws {CliError} When the file is not a valid config.
 */
export async function readConfig(configDir: string): Promise<Config> {
  const path = configPath(configDir);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { connections: {} };
    throw error;
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new CliError(
      'invalid_config',
      `${path} is not JSON; fix it or remove it and run vaultline connect.`,
      EXIT.auth,
    );
  }
  const parsed = v.safeParse(ConfigSchema, data);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    throw new CliError(
      'invalid_config',
      `${path}: ${issue?.message ?? 'invalid'} at ${v.getDotPath(issue!) ?? 'the top'}; fix it or run vaultline connect.`,
      EXIT.auth,
    );
  }
  return parsed.output;
}

/**
 * Writes the config, mode 0600, through a temporary file and a rename.
 *
 * @param configDir The config directory.
 * @param config The config.
 */
export async function writeConfig(configDir: string, config: Config): Promise<void> {
  await mkdir(configDir, { recursive: true, mode: 0o700 });
  const path = configPath(configDir);
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    await chmod(temp, 0o600);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
