/**
 * The secrets file (`connect --store file`), for machines without an OS keychain (SSH sessions,
 * containers, WSL): a connection's API key, password or personal access token, sealed with
 * AES-256-GCM (`sealed-file.ts` of `@vaultline/sealer/node`) in `<config dir>/secrets/secrets-<hash>.json`, mode 0600 in a
 * 0700 directory, under a key derived from a random 256-bit key of this machine kept apart, in
 * `<state dir>/secrets.key` (`~/.local/state/vaultline/secrets.key`, mode 0600), made on first use.
 *
 * What it protects against, honestly: the secrets file alone (a copied or synced config
 * directory, a dotfiles repository, a backup of `~/.config`, a support bundle, a `cat` on a shared
 * screen) shows nothing and opens nowhere else; other users of the machine read neither file.
 * What it does not: anything that runs as you, or as root, on this machine reads both files, as it
 * could read your shell profile. Against that, use the OS keychain, or `--store none` (asked on
 * each command).
 *
 * @module
 */

import { randomBytes } from 'node:crypto';
import { lstat, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { CredentialFields } from '@vaultline/protocol';
import {
  privateDir,
  readPrivateFile,
  readSealedFile,
  type SealedFileKey,
  sealedFileName,
  sealingContext,
  writePrivateFile,
  writeSealedFile,
} from '@vaultline/sealer/node';
import * as v from 'valibot';
import { SECRET_FIELDS, SECRET_KINDS } from './constants.ts';
import type { CliEnvironment } from './env.ts';

/** Names the format, and separates its keys from any other use of the machine key. */
const CONTEXT_LABEL = 'vaultline secrets file v1';

/** What a connection's file is sealed with: the machine key, in the context of its URL and login. */
function sealingKey(machine: Buffer, url: string, login: string | undefined): SealedFileKey {
  const context = sealingContext(CONTEXT_LABEL, url, login ?? '');
  return { material: machine, context, aad: Buffer.from(context) };
}

/** What the file holds, sealed: the secrets by their kind's name (`api-key`, `password`, …). */
const SecretsSchema = v.record(v.picklist(SECRET_KINDS), v.pipe(v.string(), v.nonEmpty()));

const KeyFileSchema = v.pipe(
  v.string(),
  v.trim(),
  v.base64(),
  v.transform((text) => Buffer.from(text, 'base64')),
  v.check((key) => key.length === 32),
);

/** The directory of the secrets files. */
export function secretsDir(env: Pick<CliEnvironment, 'configDir'>): string {
  return join(env.configDir, 'secrets');
}

/** The machine key's file. */
export function machineKeyPath(env: Pick<CliEnvironment, 'stateDir'>): string {
  return join(env.stateDir, 'secrets.key');
}

/**
 * The secrets file of a connection: its name is a hash of the URL and login, so it tells neither.
 *
 * @param env The environment (for the config directory).
 * @param url The vault's URL.
 * @param login The login.
 * @returns The path.
 */
export function secretsFilePath(
  env: Pick<CliEnvironment, 'configDir'>,
  url: string,
  login: string | undefined,
): string {
  return join(secretsDir(env), sealedFileName('secrets', sealingContext(CONTEXT_LABEL, url, login ?? '')));
}

const exists = (path: string): Promise<boolean> =>
  lstat(path).then(
    () => true,
    () => false,
  );

async function readMachineKey(env: Pick<CliEnvironment, 'stateDir'>): Promise<Buffer | undefined> {
  const text = await readPrivateFile(machineKeyPath(env));
  if (text === undefined) return undefined;
  const parsed = v.safeParse(KeyFileSchema, text);
  return parsed.success ? parsed.output : undefined;
}

async function machineKey(env: Pick<CliEnvironment, 'stateDir'>): Promise<Buffer> {
  const existing = await readMachineKey(env);
  if (existing) return existing;
  if (!(await privateDir(env.stateDir)))
    throw new Error(`${env.stateDir} is not a private directory of this user`);
  try {
    await writePrivateFile(machineKeyPath(env), `${randomBytes(32).toString('base64')}\n`, true);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const made = await readMachineKey(env);
  if (!made) throw new Error(`${machineKeyPath(env)} is not a private key file of this user`);
  return made;
}

/** What reading a connection's secrets file gave. */
export type SecretsFileRead =
  | { readonly status: 'absent' }
  | { readonly status: 'unreadable'; readonly path: string }
  | { readonly status: 'ok'; readonly credentials: CredentialFields };

/**
 * Reads a connection's secrets.
 *
 * @param env The environment.
 * @param url The vault's URL.
 * @param login The login.
 * @returns The secrets; `unreadable` when the file is there but does not open here (another
 *   machine's key, a changed byte, not a private file).
 */
export async function readSecretsFile(
  env: Pick<CliEnvironment, 'configDir' | 'stateDir'>,
  url: string,
  login: string | undefined,
): Promise<SecretsFileRead> {
  const path = secretsFilePath(env, url, login);
  const machine = await readMachineKey(env);
  try {
    const file = await readSealedFile(path, {}, () => {
      if (!machine) throw new Error('no machine key');
      return sealingKey(machine, url, login);
    });
    if (file === undefined) {
      return (await exists(path)) ? { status: 'unreadable', path } : { status: 'absent' };
    }
    const secrets = v.parse(SecretsSchema, JSON.parse(file.text));
    const credentials: CredentialFields = {};
    for (const kind of SECRET_KINDS)
      if (secrets[kind] !== undefined) credentials[SECRET_FIELDS[kind]] = secrets[kind];
    return { status: 'ok', credentials };
  } catch {
    return { status: 'unreadable', path };
  }
}

/**
 * Writes a connection's secrets, replacing what the file held (the login is not written: it names
 * the file).
 *
 * @param env The environment.
 * @param url The vault's URL.
 * @param login The login.
 * @param credentials The secrets to keep.
 * @returns The file's path.
 */
export async function writeSecretsFile(
  env: Pick<CliEnvironment, 'configDir' | 'stateDir'>,
  url: string,
  login: string | undefined,
  credentials: CredentialFields,
): Promise<string> {
  const secrets: Partial<Record<(typeof SECRET_KINDS)[number], string>> = {};
  for (const kind of SECRET_KINDS) {
    const value = credentials[SECRET_FIELDS[kind]];
    if (value !== undefined) secrets[kind] = value;
  }
  const key = await machineKey(env);
  const dir = secretsDir(env);
  if (!(await privateDir(dir))) throw new Error(`${dir} is not a private directory of this user`);
  const path = secretsFilePath(env, url, login);
  await writeSealedFile(path, JSON.stringify(secrets), sealingKey(key, url, login));
  return path;
}

/**
 * Removes a connection's secrets file.
 *
 * @returns Whether there was one.
 */
export async function removeSecretsFile(
  env: Pick<CliEnvironment, 'configDir'>,
  url: string,
  login: string | undefined,
): Promise<boolean> {
  const path = secretsFilePath(env, url, login);
  const existed = await exists(path);
  await rm(path, { force: true });
  return existed;
}
