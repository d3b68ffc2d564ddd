import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ResolvedReference, VaultError, VaultReferenceError } from '@vaultline/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  clearValueCaches,
  formatAge,
  parseMaxAge,
  resolveWithFallback,
  type ValueCache,
  valueCache,
  valueCachePath,
} from './value-cache.ts';

const SECRET = 'Pg-Pr0d#%\r\n2024!';
const HOUR = 3_600_000;
let dir: string;
let clock: number;
const warnings: string[] = [];

const ok = (text: string, value: string) => ({ ok: true, text, value }) as unknown as ResolvedReference;
const cacheOf = (credentials = 'key-1', maxAgeMs = HOUR): ValueCache =>
  valueCache({ dir, url: 'http://vault.test/', login: 'alice', credentials, maxAgeMs, now: () => clock });
const options = (cache: ValueCache) => ({ cache, warn: (m: string) => warnings.push(m), now: () => clock });

beforeEach(async () => {
  dir = join(await mkdtemp(join(tmpdir(), 'vaultline-values-')), 'cache');
  clock = 1_000_000_000_000;
  warnings.length = 0;
});
afterEach(async () => {
  await rm(join(dir, '..'), { recursive: true, force: true });
});

describe('parseMaxAge and formatAge', () => {
  it('reads a number and a unit, and refuses anything else', () => {
    expect(parseMaxAge('90s')).toBe(90_000);
    expect(parseMaxAge('30m')).toBe(1_800_000);
    expect(parseMaxAge('12h')).toBe(12 * HOUR);
    expect(parseMaxAge('7d')).toBe(7 * 24 * HOUR);
    for (const bad of ['', '10', 'h', '-1h', '0m', '1w', '1 hour'])
      expect(() => parseMaxAge(bad)).toThrow(/duration/);
  });
  it('says an age in its largest unit', () => {
    expect(formatAge(42_000)).toBe('42 seconds');
    expect(formatAge(60_000)).toBe('1 minute');
    expect(formatAge(2 * HOUR + 5)).toBe('2 hours');
    expect(formatAge(25 * HOUR)).toBe('1 day');
  });
});

describe('resolveWithFallback', () => {
  const texts = ['vaultline://1/password', 'vaultline://2/password'];
  const good = async () => [ok(texts[0]!, SECRET), ok(texts[1]!, 'two')];
  const down = async (): Promise<ResolvedReference[]> => {
    throw new VaultError('network', 'Could not reach the vault: connect ECONNREFUSED.');
  };

  it('keeps the values sealed, and answers from them when the vault is down, naming their age', async () => {
    const cache = cacheOf();
    await resolveWithFallback(texts, good, options(cache));
    const file = await readFile(valueCachePath(dir, 'http://vault.test', 'alice'), 'utf8');
    expect(file).not.toContain('Pg-Pr0d');
    expect(file).not.toContain('vaultline://');
    clock += 5 * 60_000;
    const recalled = await resolveWithFallback(texts, down, options(cache));
    expect(recalled.map((r) => (r.ok ? r.value : undefined))).toEqual([SECRET, 'two']);
    expect(warnings.join('\n')).toMatch(/ECONNREFUSED.*cached 5 minutes ago.*maximum age 1 hour/);
    expect(warnings.join('\n')).not.toContain(SECRET);
  });

  it('does not open with other credentials', async () => {
    await resolveWithFallback(texts, good, options(cacheOf('key-1')));
    await expect(resolveWithFallback(texts, down, options(cacheOf('key-2')))).rejects.toThrow(/ECONNREFUSED/);
    expect(warnings.at(-1)).toMatch(/no cached values/);
  });

  it('never answers past the maximum age', async () => {
    const cache = cacheOf();
    await resolveWithFallback(texts, good, options(cache));
    clock += HOUR + 1000;
    await expect(resolveWithFallback(texts, down, options(cache))).rejects.toThrow(/ECONNREFUSED/);
    expect(warnings.at(-1)).toMatch(/1 hour old, past the maximum age of 1 hour/);
  });

  it('never answers a refusal, and forgets everything on one', async () => {
    const cache = cacheOf();
    await resolveWithFallback(texts, good, options(cache));
    const revoked = async (): Promise<ResolvedReference[]> => {
      throw new VaultError('unauthorized', 'The API key was revoked.');
    };
    await expect(resolveWithFallback(texts, revoked, options(cache))).rejects.toThrow(/revoked/);
    expect(await readdir(dir)).toEqual([]);
    await expect(resolveWithFallback(texts, down, options(cache))).rejects.toThrow(/ECONNREFUSED/);
  });

  it('forgets on a reference the login may no longer read, and drops one that no longer resolves', async () => {
    const cache = cacheOf();
    await resolveWithFallback(texts, good, options(cache));
    const gone = {
      ok: false,
      text: texts[1]!,
      error: new VaultReferenceError('not_found', texts[1]!, 'gone'),
    };
    await resolveWithFallback(
      texts,
      async () => [ok(texts[0]!, SECRET), gone as ResolvedReference],
      options(cache),
    );
    expect((await cache.recall([texts[0]!])).status).toBe('fresh');
    expect((await cache.recall(texts)).status).toBe('missing');
    const refused = {
      ok: false,
      text: texts[0]!,
      error: new VaultReferenceError('forbidden', texts[0]!, 'no'),
    };
    await resolveWithFallback(texts, async () => [refused as ResolvedReference], options(cache));
    expect((await cache.recall([texts[0]!])).status).toBe('missing');
  });

  it('does not fall back on other failures, or without a cache', async () => {
    const bad = async (): Promise<ResolvedReference[]> => {
      throw new VaultError('invalid_response', 'What the vault sent is not an answer.');
    };
    const cache = cacheOf();
    await resolveWithFallback(texts, good, options(cache));
    await expect(resolveWithFallback(texts, bad, options(cache))).rejects.toThrow(/not an answer/);
    await expect(resolveWithFallback(texts, down)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('is cleared with one call, and ignores a tampered file', async () => {
    const cache = cacheOf();
    await resolveWithFallback(texts, good, options(cache));
    const path = valueCachePath(dir, 'http://vault.test', 'alice');
    const record = JSON.parse(await readFile(path, 'utf8'));
    record.data = Buffer.from('x').toString('base64');
    await writeFile(path, JSON.stringify(record));
    expect((await cache.recall(texts)).status).toBe('missing');
    await writeFile(join(dir, 'session-keep.json'), '{}');
    expect(await clearValueCaches(dir)).toBe(1);
    expect(await readdir(dir)).toEqual(['session-keep.json']);
    expect(await clearValueCaches(join(dir, 'absent'))).toBe(0);
  });
});
