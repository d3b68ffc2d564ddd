import { randomBytes } from 'node:crypto';
import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MASTER_KEY_FILE } from '../constants.ts';

/** A master key that is missing or malformed. The message says where and what was expected, never the key. */
export class MasterKeyError extends Error {
  override name = 'MasterKeyError';
}

/** Reads a master key written as base64 (44 chars) or hex (64 chars). */
export function parseMasterKey(text: string, where: string): Buffer {
  const value = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (key.length !== 32 || (!/^[0-9a-f]{64}$/i.test(value) && key.toString('base64') !== value)) {
    throw new MasterKeyError(
      `Expected ${where} to hold a 32-byte key as base64 (44 characters) or hex (64 characters).`,
    );
  }
  return key;
}

/** A new random master key, as base64. */
export function generateMasterKey(): string {
  return randomBytes(32).toString('base64');
}

/** Where the master key file of a data directory lives. */
export function masterKeyPath(dataDir: string): string {
  return join(dataDir, MASTER_KEY_FILE);
}

/**
 * Writes a key file with mode 0600, atomically (temp file then rename).
 *
 * @param path The file.
 * @param content The text.
 */
export async function writeSecretFile(path: string, content: string): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, `${content}\n`, { mode: 0o600, flag: 'w' });
  await chmod(temp, 0o600);
  await rename(temp, path);
}

/**
 * Loads the master key: from the environment value when set, else from `<dataDir>/master.key`,
 * created on first run when `create` is true.
 *
 * @returns The keys to try, newest first (a pending rotation leaves `master.key.next`).
 */
export async function loadMasterKeys(options: {
  envKey: string | undefined;
  dataDir: string | undefined;
  create: boolean;
}): Promise<Buffer[]> {
  if (options.envKey !== undefined) return [parseMasterKey(options.envKey, 'VAULTLINE_MASTER_KEY')];
  if (options.dataDir === undefined) return [randomBytes(32)];
  const path = masterKeyPath(options.dataDir);
  const keys: Buffer[] = [];
  const next = await readFile(`${path}.next`, 'utf8').catch(() => undefined);
  if (next !== undefined) keys.push(parseMasterKey(next, `${path}.next`));
  const current = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (current !== undefined) keys.push(parseMasterKey(current, path));
  else if (keys.length === 0) {
    if (!options.create) {
      throw new MasterKeyError(`No master key: ${path} does not exist and VAULTLINE_MASTER_KEY is not set.`);
    }
    const created = generateMasterKey();
    await writeSecretFile(path, created);
    keys.push(parseMasterKey(created, path));
  }
  return keys;
}
