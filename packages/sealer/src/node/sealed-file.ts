/**
 * Private files sealed with AES-256-GCM (Node only): the one file-handling code of the
 * apps that keep something on disk: the CLI's session token cache (sealed with the sign-in
 * secrets) and secrets file (sealed with a key kept on this machine), and the fallback values of
 * `vaultline run`/`inject` and the GitHub Action (`value-cache.ts`, sealed with the credentials).
 *
 * - A directory is used only when it is a real directory of this user that no one else can
 *   write (made mode 0700; one of ours left open is closed).
 * - A file is written mode 0600 through a temporary file and a rename (a reader sees the old
 *   file or the new one, never half of one), and read only when it is a regular file of this
 *   user that no one else can read, not through a symbolic link, and small.
 * - The value is sealed with `@vaultline/sealer` (its one format: version, key id, salt, nonce,
 *   tag, ciphertext), the key derived with HKDF-SHA256 from the key material, a random salt per
 *   write and a context (the format, the vault's URL, the login), which is authenticated too:
 *   other key material, another context or a changed byte, and the file does not open. Files
 *   written before it (fields `salt`, `iv`, `tag`, `data`) still open, and are written in the
 *   sealer's format the next time.
 *
 * @module
 */

import { createHash, randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { chmod, link, lstat, mkdir, open, rename, rm } from 'node:fs/promises';
import * as v from 'valibot';
import { openLegacyFields } from '../legacy.ts';
import { createDerivedSealer, SealError } from '../sealer.ts';

/**
 * The largest private file read by default: tokens and keys are a few hundred bytes. (A file's
 * limit, not the sealer's: `MAX_SEALED_BYTES` bounds one sealed value.)
 */
export const MAX_PRIVATE_FILE_BYTES = 64 * 1024;

const base64 = (bytes: number | undefined) =>
  v.pipe(
    v.string(),
    v.base64(),
    v.transform((text) => Buffer.from(text, 'base64')),
    v.check((buffer) => bytes === undefined || buffer.length === bytes, `Expected ${bytes} bytes.`),
  );

/**
 * The sealed part of a file, for a record's schema to spread: `sealed`, the value in
 * `@vaultline/sealer`'s format (text form), or the four base64 fields of the files written before
 * it (`salt`, `iv`, `tag`, `data`), read so that no such file becomes unreadable.
 */
export const SealedSchema = {
  sealed: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]+$/))),
  salt: v.optional(base64(16)),
  iv: v.optional(base64(12)),
  tag: v.optional(base64(16)),
  data: v.optional(base64(undefined)),
};

/** A sealed value, as {@link SealedSchema} reads it: `sealed`, or the four fields of the earlier format. */
export interface Sealed {
  readonly sealed?: string | undefined;
  readonly salt?: Buffer | undefined;
  readonly iv?: Buffer | undefined;
  readonly tag?: Buffer | undefined;
  readonly data?: Buffer | undefined;
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

/**
 * Seals a text with a key derived with HKDF-SHA256 from the key material, a random salt and the
 * context (`@vaultline/sealer`'s derived sealer).
 *
 * @param text The text.
 * @param material The key material.
 * @param context The context (HKDF's info).
 * @param aad The data to authenticate with it (e.g. the context, a field stored in clear).
 * @returns The record's sealed field: `{ sealed }`, the value in the sealer's text form.
 */
export function seal(
  text: string,
  material: string | Buffer,
  context: string,
  aad: Buffer,
): { sealed: string } {
  return { sealed: createDerivedSealer(material, context).sealText(text, aad) };
}

/**
 * Opens a sealed value: in the sealer's format, or in the four fields of the files written before
 * it (sealed again in the sealer's format at the file's next write).
 *
 * @param sealed The sealed fields.
 * @param material The key material.
 * @param context The context.
 * @param aad The data authenticated with it.
 * @returns The text.
 * @throws When the key material, the context or any byte differs, or the record holds no sealed
 *   value (or both formats).
 */
export function unseal(sealed: Sealed, material: string | Buffer, context: string, aad: Buffer): string {
  const { salt, iv, tag, data } = sealed;
  if (sealed.sealed !== undefined) {
    // A record holds one format or the other: one with both was not written by us.
    if (salt ?? iv ?? tag ?? data) throw new SealError('format');
    return createDerivedSealer(material, context).openText(sealed.sealed, aad).toString('utf8');
  }
  if (!salt || !iv || !tag || !data) throw new SealError('format');
  return openLegacyFields({ salt, iv, tag, data }, material, context, aad).toString('utf8');
}

/** The clear fields of a sealed file, as their schema reads them. */
type ClearFields<TEntries extends v.ObjectEntries> = v.InferOutput<v.ObjectSchema<TEntries, undefined>>;

/** What a sealed file is sealed with: the key material, the context (HKDF's info) and the data authenticated with it. */
export interface SealedFileKey {
  readonly material: string | Buffer;
  readonly context: string;
  readonly aad: Buffer;
}

/**
 * Writes a sealed file: one line `{"v":1,…clear,"sealed":…}`, mode 0600 through a temporary file
 * (the directory must exist and be private: {@link privateDir}).
 *
 * @param path The file.
 * @param text What to seal.
 * @param key What to seal it with.
 * @param clear Fields kept in clear beside it (authenticate them through `key.aad`).
 */
export async function writeSealedFile(
  path: string,
  text: string,
  key: SealedFileKey,
  clear: Readonly<Record<string, unknown>> = {},
): Promise<void> {
  const record = { v: 1, ...clear, ...seal(text, key.material, key.context, key.aad) };
  await writePrivateFile(path, `${JSON.stringify(record)}\n`);
}

/**
 * Reads a sealed file written by {@link writeSealedFile} (or in the format before the sealer).
 *
 * @param path The file.
 * @param clearEntries The schema of its clear fields.
 * @param keyOf What it was sealed with, given its clear fields.
 * @param maxBytes The largest file read.
 * @returns Its clear fields and the opened text; `undefined` when there is no private file to read
 *   ({@link readPrivateFile}).
 * @throws When the file is there but does not open: not JSON, another shape, other key material,
 *   another context or data, a changed byte.
 */
export async function readSealedFile<const TEntries extends v.ObjectEntries>(
  path: string,
  clearEntries: TEntries,
  keyOf: (clear: ClearFields<TEntries>) => SealedFileKey,
  maxBytes: number = MAX_PRIVATE_FILE_BYTES,
): Promise<{ clear: ClearFields<TEntries>; text: string } | undefined> {
  const file = await readPrivateFile(path, maxBytes);
  if (file === undefined) return undefined;
  const record = v.parse(v.object({ v: v.literal(1), ...clearEntries, ...SealedSchema }), JSON.parse(file));
  const key = keyOf(record as ClearFields<TEntries>);
  return { clear: record as ClearFields<TEntries>, text: unseal(record, key.material, key.context, key.aad) };
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
  maxBytes: number = MAX_PRIVATE_FILE_BYTES,
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
