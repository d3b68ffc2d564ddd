/**
 * The fallback for outages (opt-in): the values resolved in the last successful run, kept sealed
 * on disk, used only when the vault cannot be reached. One implementation for `vaultline run`,
 * `vaultline inject` and the GitHub Action:
 *
 * - a successful resolution remembers its values (each with the time it was read), sealed with
 *   AES-256-GCM under a key derived with HKDF-SHA256 from the connection's credentials, the
 *   vault's URL and the login (`@vaultline/sealer/node`): the file is useless without the credentials,
 *   and its name, a hash of URL and login, tells neither;
 * - when the vault cannot be reached (no answer, no answer in time, a 5xx), the remembered values
 *   are used, with a warning naming their age, if every reference asked for is there and none is
 *   older than the maximum age; otherwise the failure stands;
 * - a refusal (401/403, or a reference the login may no longer read) is never answered from the
 *   cache: revocation wins, and the cached values of that connection are deleted; a reference
 *   that no longer resolves is dropped from it.
 *
 * @see ../../../docs/references.md#fallback-for-outages
 * @module
 */

import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isReferenceError, isVaultError, type ResolvedReference } from '@vaultline/protocol';
import * as sealedFile from '@vaultline/sealer/node';
import * as v from 'valibot';

/** The start of every value cache file's name (`values-<hash>.json`). */
export const VALUE_CACHE_PREFIX = 'values';

/** The largest value cache file read (values may be attachments). */
export const MAX_VALUE_CACHE_BYTES = 16 * 1024 * 1024;

/** Names the format, and separates its keys from any other use of the same credentials. */
const CONTEXT_LABEL = 'vaultline value cache v1';

const EntriesSchema = v.record(v.string(), v.object({ value: v.string(), at: v.number() }));
type Entries = v.InferOutput<typeof EntriesSchema>;

const UNITS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Reads a maximum age: a number and a unit, `s`, `m`, `h` or `d` (`90s`, `30m`, `12h`, `7d`).
 *
 * @param text The duration.
 * @returns Milliseconds.
 * @throws {Error} When it is not one.
 */
export function parseMaxAge(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([smhd])\s*$/.exec(text);
  const ms = match ? Number(match[1]) * UNITS[match[2]!]! : Number.NaN;
  if (!(ms > 0) || !Number.isFinite(ms))
    throw new Error(
      `Expected a duration such as 90s, 30m, 12h or 7d (a number and s, m, h or d), not ${JSON.stringify(text.slice(0, 40))}.`,
    );
  return ms;
}

/**
 * An age in words, rounded down to its largest unit: `42 seconds`, `3 minutes`, `2 hours`, `1 day`.
 *
 * @param ms The age.
 * @returns The words.
 */
export function formatAge(ms: number): string {
  for (const [unit, size] of [
    ['day', UNITS.d!],
    ['hour', UNITS.h!],
    ['minute', UNITS.m!],
  ] as const) {
    const count = Math.floor(ms / size);
    if (count >= 1) return `${count} ${unit}${count === 1 ? '' : 's'}`;
  }
  const seconds = Math.max(0, Math.floor(ms / 1000));
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

/**
 * Whether a failure means the vault could not be reached: no answer (`network`), no answer in
 * time (`timeout`), or a server failure (`server`, a 5xx). Only these may fall back.
 *
 * @param error The failure.
 * @returns Whether the cached values may answer.
 */
export function canFallBack(error: unknown): boolean {
  return isVaultError(error, 'network', 'timeout', 'server');
}

/**
 * Whether a failure is a refusal: the credentials refused (`unauthorized`), the action refused
 * (`forbidden`), or a reference the login may not read. A refusal deletes the cached values.
 *
 * @param error The failure.
 * @returns Whether it is one.
 */
export function isRefusal(error: unknown): boolean {
  return isVaultError(error, 'unauthorized', 'forbidden') || isReferenceError(error, 'forbidden');
}

/** What the cache holds for some references. */
export type Recall =
  | {
      /** Every reference is there, none older than the maximum age. */
      readonly status: 'fresh';
      /** The values by canonical reference text. */
      readonly values: ReadonlyMap<string, string>;
      /** When the oldest of them was read (ms since the epoch). */
      readonly savedAt: number;
    }
  | {
      /** Every reference is there, but one is older than the maximum age. */
      readonly status: 'expired';
      /** When the oldest of them was read. */
      readonly savedAt: number;
    }
  | {
      /** A reference is not there (or the file does not open with these credentials). */
      readonly status: 'missing';
    };

/** The cached values of one connection. */
export interface ValueCache {
  /** The maximum age, in ms. */
  readonly maxAgeMs: number;
  /**
   * What the cache holds for references.
   *
   * @param texts The references, canonical.
   * @returns Their values when all are there and fresh.
   */
  recall(texts: readonly string[]): Promise<Recall>;
  /**
   * Remembers values read now; drops the references given as failed, and what is past the maximum age.
   *
   * @param values The values by canonical reference text.
   * @param failed References that did not resolve.
   */
  remember(values: ReadonlyMap<string, string>, failed?: readonly string[]): Promise<void>;
  /** Deletes every cached value of the connection. */
  forget(): Promise<void>;
}

/** Options of {@link valueCache}. */
export interface ValueCacheOptions {
  /** The cache directory (made mode 0700; used only when it is this user's alone). */
  readonly dir: string;
  /** The vault's URL. */
  readonly url: string;
  /** The login, when there is one. */
  readonly login: string | undefined;
  /** The connection's credentials, as one string: the key is derived from them. */
  readonly credentials: string;
  /** The maximum age, in ms. */
  readonly maxAgeMs: number;
  /** Told once when the cache cannot be written (a directory others may write, a full disk). */
  readonly warn?: ((message: string) => void) | undefined;
  /** The clock, for tests. */
  readonly now?: (() => number) | undefined;
}

/**
 * The path of a connection's value cache file.
 *
 * @param dir The cache directory.
 * @param url The vault's URL.
 * @param login The login.
 * @returns The path.
 */
export function valueCachePath(dir: string, url: string, login: string | undefined): string {
  return join(
    dir,
    sealedFile.sealedFileName(VALUE_CACHE_PREFIX, sealedFile.sealingContext(CONTEXT_LABEL, url, login ?? '')),
  );
}

/**
 * The cached values of one connection (see the module's notes).
 *
 * @param options Where, for which vault and login, the credentials and the maximum age.
 * @returns The cache.
 */
export function valueCache(options: ValueCacheOptions): ValueCache {
  const context = sealedFile.sealingContext(CONTEXT_LABEL, options.url, options.login ?? '');
  const path = valueCachePath(options.dir, options.url, options.login);
  const key = { material: options.credentials, context, aad: Buffer.from(context) };
  const now = options.now ?? Date.now;
  let warned = false;

  async function read(): Promise<Entries> {
    try {
      const file = await sealedFile.readSealedFile(path, {}, () => key, MAX_VALUE_CACHE_BYTES);
      return file === undefined ? {} : v.parse(EntriesSchema, JSON.parse(file.text));
    } catch {
      // Other credentials, another vault or login, or tampered with: nothing to use.
      return {};
    }
  }

  return {
    maxAgeMs: options.maxAgeMs,
    async recall(texts) {
      const entries = await read();
      let savedAt = Number.POSITIVE_INFINITY;
      const values = new Map<string, string>();
      for (const text of texts) {
        const entry = entries[text];
        if (entry === undefined) return { status: 'missing' };
        values.set(text, entry.value);
        savedAt = Math.min(savedAt, entry.at);
      }
      if (values.size === 0) return { status: 'missing' };
      const age = now() - savedAt;
      // A time in the future (a clock set back) proves nothing about the age: not used.
      if (age > options.maxAgeMs || age < 0) return { status: 'expired', savedAt };
      return { status: 'fresh', values, savedAt };
    },
    async remember(values, failed = []) {
      try {
        if (!(await sealedFile.privateDir(options.dir))) {
          if (!warned)
            options.warn?.(`Not caching values: ${options.dir} is not a private directory of this user.`);
          warned = true;
          return;
        }
        const at = now();
        const entries: Entries = {};
        for (const [text, entry] of Object.entries(await read()))
          if (at - entry.at <= options.maxAgeMs && !failed.includes(text)) entries[text] = entry;
        for (const [text, value] of values) entries[text] = { value, at };
        await sealedFile.writeSealedFile(path, JSON.stringify(entries), key);
      } catch (error) {
        if (!warned)
          options.warn?.(
            `Could not cache values in ${options.dir}: ${(error as NodeJS.ErrnoException).code ?? 'error'}.`,
          );
        warned = true;
      }
    },
    async forget() {
      await rm(path, { force: true });
    },
  };
}

/**
 * Deletes every value cache file in a directory (`vaultline cache clear`): no credentials needed.
 *
 * @param dir The cache directory.
 * @returns How many files were deleted.
 */
export async function clearValueCaches(dir: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  const ours = names.filter((name) => name.startsWith(`${VALUE_CACHE_PREFIX}-`));
  await Promise.all(ours.map((name) => rm(join(dir, name), { force: true })));
  return ours.length;
}

/** A value answered from the cache, when the vault could not be reached. */
export interface RecalledValue {
  /** It has a value. */
  readonly ok: true;
  /** The reference, canonical. */
  readonly text: string;
  /** The cached value. */
  readonly value: string;
  /** It came from the cache. */
  readonly recalled: true;
}

/** Options of {@link resolveWithFallback}. */
export interface FallbackOptions {
  /** The connection's cached values; without one, nothing is cached or recalled. */
  readonly cache?: ValueCache | undefined;
  /** Told when cached values answer, and why they could not. */
  readonly warn?: ((message: string) => void) | undefined;
  /** The clock, for tests. */
  readonly now?: (() => number) | undefined;
}

/**
 * Resolves references, falling back to the cached values when the vault cannot be reached (see
 * the module's notes).
 *
 * @param texts The references, canonical: what the fallback must answer.
 * @param resolve Resolves them against the vault (e.g. `resolveReferences`).
 * @param options The cache and where warnings go.
 * @returns The vault's results, or the cached values.
 * @throws The failure of `resolve` when the cache cannot answer it.
 */
export async function resolveWithFallback(
  texts: readonly string[],
  resolve: () => Promise<readonly ResolvedReference[]>,
  options: FallbackOptions = {},
): Promise<readonly (ResolvedReference | RecalledValue)[]> {
  const { cache, warn } = options;
  const now = options.now ?? Date.now;
  let results: readonly ResolvedReference[];
  try {
    results = await resolve();
  } catch (error) {
    if (cache === undefined) throw error;
    if (isRefusal(error)) {
      await cache.forget();
      throw error;
    }
    if (!canFallBack(error)) throw error;
    const recall = await cache.recall([...new Set(texts)]);
    const max = formatAge(cache.maxAgeMs);
    if (recall.status === 'fresh') {
      warn?.(
        `${(error as Error).message} Using the values cached ${formatAge(now() - recall.savedAt)} ago by the last successful run (maximum age ${max}).`,
      );
      return [...recall.values].map(([text, value]) => ({ ok: true, text, value, recalled: true }));
    }
    warn?.(
      recall.status === 'expired'
        ? `No fallback: the cached values are ${formatAge(now() - recall.savedAt)} old, past the maximum age of ${max}.`
        : 'No fallback: no cached values for these references (a successful run with the cache on keeps them).',
    );
    throw error;
  }
  if (cache !== undefined) {
    if (results.some((result) => !result.ok && isRefusal(result.error))) await cache.forget();
    else {
      const values = new Map<string, string>();
      const failed: string[] = [];
      for (const result of results) {
        if (result.ok) values.set(result.text, result.value);
        else failed.push(result.text);
      }
      await cache.remember(values, failed);
    }
  }
  return results;
}
