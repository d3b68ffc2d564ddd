/**
 * Private files sealed with AES-256-GCM (Node only): the one sealing and file-handling code of the
 * apps that keep something on disk: the CLI's session token cache (sealed with the sign-in
 * secrets) and secrets file (sealed with a key kept on this machine), and the fallback values of
 * `vaultline run`/`inject` and the GitHub Action (`value-cache.ts`, sealed with the credentials).
 *
 * - A directory is used only when it is a real directory of this user that no one else can
 *   write (made mode 0700; one of ours left open is closed).
 * - A file is written mode 0600 through a temporary file and a rename (a reader sees the old
 *   file or the new one, never half of one), and read only when it is a regular file of this
 *   user that no one else can read, not through a symbolic link, and small.
 * - The key is derived with HKDF-SHA256 from the key material, a random salt per write and a
 *   context (the format, the vault's URL, the login), which is authenticated too: other key
 *   material, another context or a changed byte, and the file does not open.
 *
 * @module
 */

import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { chmod, link, lstat, mkdir, open, rename, rm } from 'node:fs/promises';
import * as v from 'valibot';

/** The largest sealed file read by default: tokens and keys are a few hundred bytes. */
export const MAX_SEALED_BYTES = 64 * 1024;

const base64 = (bytes: number | undefined) =>
  v.pipe(
    v.string(),
    v.base64(),
    v.transform((text) => Buffer.from(text, 'base64')),
    v.check((buffer) => bytes === undefined || buffer.length === bytes, `Expected ${bytes} bytes.`),
  );

/** The sealed part of a file: salt, nonce, tag and ciphertext, in base64. */
export const SealedSchema = {
  salt: base64(16),
  iv: base64(12),
  tag: base64(16),
  data: base64(undefined),
};

/** A sealed value, as {@link SealedSchema} reads it. */
export interface Sealed {
  readonly salt: Buffer;
  readonly iv: Buffer;
  readonly tag: Buffer;
  readonly data: Buffer;
}

/**
 * The context a file is sealed in: its format, the vault and the login.
 *
 * @param label The format's name, e.g. `vaultline session token cache v1`.
 * @param url The vault's URL.
 * @param login The login.
 * @returns The context.
 */
export function sealingContext(label: string, url: string, login: string): string {
  return JSON.stringify([label, url.replace(/\/+$/, ''), login.trim().toLowerCase()]);
}

/**
 * A file name that tells nothing of the context: a hash of it.
 *
 * @param prefix The name's start, e.g. `session`.
 * @param context The context.
 * @returns `<prefix>-<32 hex digits>.json`.
 */
export function sealedFileName(prefix: string, context: string): string {
  return `${prefix}-${createHash('sha256').update(context).digest('hex').slice(0, 32)}.json`;
}

function keyOf(material: string | Buffer, salt: Buffer, context: string): Buffer {
  return Buffer.from(hkdfSync('sha256', material, salt, context, 32));
}

/**
 * Seals a text.
 *
 * @param text The text.
 * @param material The key material.
 * @param context The context (also authenticated).
 * @param aad More data to authenticate with the context (e.g. a field stored in clear).
 * @returns The record's sealed fields, in base64.
 */
export function seal(
  text: string,
  material: string | Buffer,
  context: string,
  aad: Buffer,
): { salt: string; iv: string; tag: string; data: string } {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(material, salt, context), iv);
  cipher.setAAD(aad);
  const data = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return {
    salt: salt.toString('base64'),
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    data: data.toString('base64'),
  };
}

/**
 * Opens a sealed value.
 *
 * @param sealed The sealed fields.
 * @param material The key material.
 * @param context The context.
 * @param aad The data authenticated with it.
 * @returns The text.
 * @throws When the key material, the context or any byte differs.
 */
export function unseal(sealed: Sealed, material: string | Buffer, context: string, aad: Buffer): string {
  const decipher = createDecipheriv('aes-256-gcm', keyOf(material, sealed.salt, context), sealed.iv);
  decipher.setAAD(aad);
  decipher.setAuthTag(sealed.tag);
  return Buffer.concat([decipher.update(sealed.data), decipher.final()]).toString('utf8');
}

const ownUid = typeof process.getuid === 'function' ? process.getuid() : undefined;

/** Whether a file or directory belongs to this user and no one else can use it. */
function isPrivate(stats: Stats, others: number): boolean {
  if (ownUid === undefined) return true; // Windows: the profile directory's ACLs decide.
  return stats.uid === ownUid && (stats.mode & others) === 0;
}

/**
 * Makes a directory private to this user, or says it cannot be.
 *
 * @param dir The directory.
 * @returns Whether it is a directory of this user that no one else can use.
 */
export async function privateDir(dir: string): Promise<boolean> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const stats = await lstat(dir);
  if (!stats.isDirectory()) return false;
  if (isPrivate(stats, 0o077)) return true;
  // Ours but open to others (made by hand, or a umask): close it; someone else's: keep out.
  if (ownUid !== undefined && stats.uid === ownUid) {
    await chmod(dir, 0o700);
    return true;
  }
  return false;
}

/**
 * Reads a private file.
 *
 * @param path The file.
 * @param maxBytes The largest file read.
 * @returns Its text; `undefined` when it is absent, not a regular file, too large, or readable by others.
 */
export async function readPrivateFile(
  path: string,
  maxBytes: number = MAX_SEALED_BYTES,
): Promise<string | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
  } catch {
    return undefined;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile() || stats.size > maxBytes || !isPrivate(stats, 0o077)) return undefined;
    return await handle.readFile('utf8');
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

/**
 * Writes a file mode 0600 through a temporary file and a rename (the directory must exist).
 *
 * @param path The file.
 * @param text The text.
 * @param exclusive Fail with `EEXIST` rather than replace a file that exists.
 */
export async function writePrivateFile(path: string, text: string, exclusive = false): Promise<void> {
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.chmod(0o600);
      await handle.writeFile(text);
    } finally {
      await handle.close();
    }
    if (exclusive) {
      // A link fails when the name exists: two processes making the same file keep the first.
      try {
        await link(temp, path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw error;
        // A file system without hard links (some network or Windows mounts): rename, if still absent.
        const taken = await lstat(path).then(
          () => true,
          () => false,
        );
        if (taken) throw Object.assign(new Error(`${path} exists`), { code: 'EEXIST' });
        await rename(temp, path);
      }
      await rm(temp, { force: true });
    } else await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
