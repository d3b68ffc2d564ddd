/**
 * A sealed cache file per vault: what a Node app keeps between processes (a session token, an
 * exchanged key, what a server said of a key) in a file of its cache directory, sealed with a
 * secret the process holds ({@link writeSealedFile}). The file is named by a hash of its context
 * (the format's label, the vault's URL and a scope such as the login), so its name tells neither;
 * reading is a cache miss on any failure (absent, foreign, tampered with, another secret), and
 * writing is best effort: a cache that cannot be used only costs the next process the question.
 *
 * @module
 */

import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import * as v from 'valibot';
import {
  privateDir,
  readSealedFile,
  type SealedFileKey,
  sealedFileName,
  sealingContext,
  writeSealedFile,
} from './sealed-file.ts';

/** The clear fields of a cache file, as their schema reads them. */
export type CacheClearFields<TEntries extends v.ObjectEntries> = v.InferOutput<
  v.ObjectSchema<TEntries, undefined>
>;

/** How a value is written in a cache file: the text sealed, the fields kept in clear beside it. */
export interface SealedCacheCodec<TValue, TEntries extends v.ObjectEntries> {
  /** The schema of the clear fields (none for most caches). */
  readonly clear: TEntries;
  /**
   * The text to seal and the clear fields of a value.
   *
   * @param value The value.
   * @returns What the file holds.
   */
  encode(value: TValue): { text: string; clear: CacheClearFields<TEntries> };
  /**
   * The value of an opened file.
   *
   * @param text The opened text.
   * @param clear The clear fields.
   * @returns The value; `undefined` for none.
   * @throws When the text is not a value of this cache (then the file reads as empty).
   */
  decode(text: string, clear: CacheClearFields<TEntries>): TValue | undefined;
  /**
   * The data authenticated with the sealed text: it must hold the context, and any clear field.
   *
   * @param context The file's context.
   * @param clear The clear fields.
   * @returns The data.
   */
  aad(context: string, clear: CacheClearFields<TEntries>): Buffer;
}

/**
 * The codec of a value sealed as JSON and read back through its schema, with no clear field and
 * the context as the authenticated data.
 *
 * @param schema The value's schema.
 * @returns The codec.
 */
export function jsonCodec<TValue>(
  schema: v.GenericSchema<unknown, TValue>,
): SealedCacheCodec<TValue, Record<string, never>> {
  return {
    clear: {},
    encode: (value) => ({ text: JSON.stringify(value), clear: {} }),
    decode: (text) => v.parse(schema, JSON.parse(text)),
    aad: (context) => Buffer.from(context),
  };
}

/** A cache's format: its name, its files' names, and how a value is written. */
export interface SealedCacheFormat<TValue, TEntries extends v.ObjectEntries> {
  /**
   * Names the format in the sealing context, which separates its keys from any other use of the
   * same secret (e.g. `vaultline session token cache v1`).
   */
  readonly label: string;
  /** The file name's start: `<prefix>-<32 hex digits>.json`. */
  readonly prefix: string;
  /** What is cached, for the warnings: `Not caching the <what>: …`. */
  readonly what: string;
  /** How a value is written ({@link jsonCodec} for most). */
  readonly codec: SealedCacheCodec<TValue, TEntries>;
}

/** Where a cache file is: its directory, the vault, and the scope within the vault. */
export interface SealedCachePlace {
  /** The cache directory (made private when a value is written). */
  readonly dir: string;
  /** The vault's URL (a final `/` is not part of it). */
  readonly url: string;
  /** What else the file is for, e.g. the login or a policy (compared without case); `''` for none. */
  readonly scope: string;
}

/** One cache file: a value sealed with a secret, read and written at best effort. */
export interface SealedCache<TValue> {
  /** The file's path. */
  readonly path: string;
  /**
   * The cached value.
   *
   * @param material The secret it was sealed with.
   * @returns The value; `undefined` when there is none, or a file that does not open with this
   *   secret in this context, does not decode, or is not a private file of this user.
   */
  get(material: string | Buffer): Promise<TValue | undefined>;
  /**
   * Caches a value, when the directory is private to this user; never throws.
   *
   * @param material The secret to seal it with.
   * @param value The value, or what makes it (asked only when the file can be written).
   * @param warn Told why it was not cached (a directory others may write, a full disk).
   * @returns The value written, or `undefined` when it was not.
   */
  set(
    material: string | Buffer,
    value: TValue | (() => Promise<TValue>),
    warn?: (message: string) => void,
  ): Promise<TValue | undefined>;
  /**
   * Removes the file (no secret needed).
   *
   * @throws When it is there and cannot be removed.
   */
  forget(): Promise<void>;
}

/**
 * A sealed cache: the file of each vault and scope in a cache directory.
 *
 * @param format The cache's label, file prefix, name in warnings and codec.
 * @returns The file of a place.
 */
export function sealedCache<TValue, TEntries extends v.ObjectEntries>(
  format: SealedCacheFormat<TValue, TEntries>,
): (place: SealedCachePlace) => SealedCache<TValue> {
  const { codec } = format;
  return ({ dir, url, scope }) => {
    const context = sealingContext(format.label, url, scope);
    const path = join(dir, sealedFileName(format.prefix, context));
    const keyOf = (material: string | Buffer, clear: CacheClearFields<TEntries>): SealedFileKey => ({
      material,
      context,
      aad: codec.aad(context, clear),
    });
    return {
      path,
      async get(material) {
        try {
          const file = await readSealedFile(path, codec.clear, (clear) => keyOf(material, clear));
          return file === undefined ? undefined : codec.decode(file.text, file.clear);
        } catch {
          // Not JSON, another secret, another context, or tampered with: not ours to use.
          return undefined;
        }
      },
      async set(material, value, warn) {
        try {
          if (!(await privateDir(dir))) {
            warn?.(`Not caching the ${format.what}: ${dir} is not a private directory of this user.`);
            return undefined;
          }
          const made = typeof value === 'function' ? await (value as () => Promise<TValue>)() : value;
          const { text, clear } = codec.encode(made);
          await writeSealedFile(path, text, keyOf(material, clear), clear);
          return made;
        } catch (error) {
          warn?.(
            `Could not cache the ${format.what} in ${dir}: ${(error as NodeJS.ErrnoException).code ?? 'error'}.`,
          );
          return undefined;
        }
      },
      async forget() {
        await rm(path, { force: true });
      },
    };
  };
}
