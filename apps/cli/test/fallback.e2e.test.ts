import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { EXIT } from '@vaultline/protocol';
import { type OutageProxy, startOutageProxy } from '@vaultline/vault-server/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { type CliOptions, type CliResult, leaks, runCli, tempHome } from './support/cli.ts';
import { type SeededVault, startSeededVault } from './support/seed.ts';
import { startsTimeout } from './support/timing.ts';

// A test here starts at most six processes unless it says how many (test/support/timing.ts).
vi.setConfig({ testTimeout: startsTimeout(6) });

let seeded: SeededVault;
let proxy: OutageProxy;
let home: { dir: string; cleanup: () => Promise<void> };
const results: CliResult[] = [];
const cacheDir = () => join(home.dir, 'cache');

beforeAll(async () => {
  seeded = await startSeededVault();
  proxy = await startOutageProxy(seeded.vault.url);
  home = await tempHome();
});
afterAll(async () => {
  // No value, key or password in any output of this file.
  for (const result of results) expect(leaks(result, seeded.secrets)).toEqual([]);
  await proxy?.close();
  await seeded?.vault.close();
  await home?.cleanup();
});
beforeEach(async () => {
  proxy.mode = 'up';
  await rm(cacheDir(), { recursive: true, force: true });
});

async function cli(args: readonly string[], key: string, options: CliOptions = {}): Promise<CliResult> {
  const result = await runCli(home.dir, args, {
    ...options,
    env: {
      VAULTLINE_URL: proxy.url,
      VAULTLINE_API_KEY: key,
      VAULTLINE_LOGIN: 'alice',
      VAULTLINE_CACHE_DIR: cacheDir(),
      DB_PASS: `vaultline://${seeded.items['prod db']}/password`,
      TOKEN: 'vaultline://Engineering/api%20token/password',
      ...options.env,
    },
  });
  results.push(result);
  return result;
}

/** The child checks the values itself and prints only whether they matched. */
const CHECK = [
  'run',
  '--cache-max-age',
  '1h',
  '--',
  process.execPath,
  '-e',
  'process.stdout.write(process.env.DB_PASS === process.env.WANT_DB && process.env.TOKEN === process.env.WANT_TOKEN ? "match" : "differ")',
];
const want = () => ({ WANT_DB: seeded.passwords['prod db']!, WANT_TOKEN: seeded.passwords['api token']! });

/** The sealed values kept for outages (the cache directory also says what a server and a key are). */
async function cachedValues(): Promise<string[]> {
  const names = await readdir(cacheDir()).catch(() => [] as string[]);
  return names.filter((name) => name.startsWith('values-'));
}

describe('the fallback for outages (--cache-max-age)', () => {
  it('keeps nothing without the option, and fails when the vault is down', async () => {
    const plain = await cli(
      CHECK.filter((arg) => arg !== '--cache-max-age' && arg !== '1h'),
      seeded.aliceKey,
      {
        env: want(),
      },
    );
    expect(plain.stdout).toBe('match');
    expect(await cachedValues()).toEqual([]);
    proxy.mode = 'down';
    const down = await cli(CHECK, seeded.aliceKey, { env: want() });
    expect(down.code).toBe(EXIT.vault);
    expect(down.stderr).toMatch(/No fallback: no cached values/);
  });

  it('answers run and inject from the sealed values while the vault is down or failing, naming their age', async () => {
    const first = await cli(CHECK, seeded.aliceKey, { env: want() });
    expect(first.code).toBe(0);
    expect(first.stdout).toBe('match');
    const [file] = await cachedValues();
    const sealed = await readFile(join(cacheDir(), file!), 'utf8');
    for (const secret of seeded.secrets) expect(sealed).not.toContain(secret);
    expect(sealed).not.toContain('vaultline://');

    for (const mode of ['down', 'failing'] as const) {
      proxy.mode = mode;
      const fallback = await cli(CHECK, seeded.aliceKey, { env: want() });
      expect({ mode, code: fallback.code, out: fallback.stdout }).toEqual({ mode, code: 0, out: 'match' });
      expect(fallback.stderr).toMatch(
        /Using the values cached \d+ seconds? ago by the last successful run \(maximum age 1 hour\)/,
      );
    }
    const injected = await cli(['inject', '--cache-max-age', '1h'], seeded.aliceKey, {
      input: `db=vaultline://${seeded.items['prod db']}/password\n`,
    });
    expect(injected.code).toBe(0);
    expect(injected.stdout).toBe(`db=${seeded.passwords['prod db']}\n`);
    results.pop(); // asked to print the value

    // A reference the last run did not read has no fallback.
    const other = await cli(CHECK, seeded.aliceKey, {
      env: { ...want(), EXTRA: `vaultline://${seeded.items['github deploy']}/password` },
    });
    expect(other.code).toBe(EXIT.vault);
    expect(other.stderr).toMatch(/No fallback: no cached values/);

    // One command removes them.
    const cleared = await cli(['cache', 'clear'], seeded.aliceKey);
    expect(cleared.stderr).toMatch(/Deleted the cached values of 1 connection/);
    expect(await cachedValues()).toEqual([]);
    expect((await cli(CHECK, seeded.aliceKey, { env: want() })).code).toBe(EXIT.vault);
  });

  it('never uses values past the maximum age', async () => {
    const age = ['--cache-max-age', '1s'];
    const args = [...CHECK.slice(0, 1), ...age, ...CHECK.slice(3)];
    expect((await cli(args, seeded.aliceKey, { env: want() })).code).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    proxy.mode = 'down';
    const expired = await cli(args, seeded.aliceKey, { env: want() });
    expect(expired.code).toBe(EXIT.vault);
    expect(expired.stderr).toMatch(
      /No fallback: the cached values are \d+ seconds? old, past the maximum age of 1 second/,
    );
    expect(expired.stdout).toBe('');
  });

  it('never answers a revoked key, even with fresh values, and deletes them', async () => {
    const label = `fallback-${Date.now()}`;
    const key = await seeded.vault.admin.createKey({ label, login: 'alice' });
    expect((await cli(CHECK, key, { env: want() })).code).toBe(0);
    expect(await cachedValues()).toHaveLength(1);
    await seeded.vault.admin.revokeKey(label);
    const revoked = await cli(CHECK, key, { env: want() });
    expect(revoked.code).toBe(EXIT.auth);
    expect(revoked.stdout).toBe('');
    expect(await cachedValues()).toEqual([]);
    // Nothing is left to answer an outage with either.
    proxy.mode = 'down';
    expect((await cli(CHECK, key, { env: want() })).code).toBe(EXIT.vault);
  });

  it('refuses a duration that does not parse', async () => {
    const bad = await cli(['run', '--cache-max-age', 'soon', '--', 'true'], seeded.aliceKey);
    expect(bad.code).toBe(EXIT.usage);
    expect(bad.stderr).toMatch(/--cache-max-age: Expected a duration/);
  });
});
