import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ENV } from './constants.ts';
import { readEnvironment } from './env.ts';
import { rememberedKeyAnswer, rememberKeyAnswer } from './key-memory.ts';
import { forgetOidcKey, oidcApiKey } from './oidc-key.ts';
import { fileTokenCache, tokenFilePath } from './token-cache.ts';

/**
 * The three caches' files as the CLI wrote them before `sealedCache` (at a64e84e, with throwaway
 * secrets): the key answer and the session token by the modules of then, the OIDC key by its
 * recipe of then (an exchange needs a server). They must still open, under the same names.
 */
const URL = 'http://127.0.0.1:8200';
const API_KEY = 'fixture-api-key-0123456789';
const PASSWORD = 'fixture-password';
const OIDC_TOKEN = 'fixture-oidc-token';
const WRITTEN_BEFORE: Readonly<Record<string, string>> = {
  'key-8b76eca10fcb69c50f248c7df95034be.json':
    '{"v":1,"sealed":"AgGFIaNy8QxJ2YgkxR1wQHxaiK6NUgWMOPXieTMV8XFbjEu3RN6YDo9qKL21PY5Pp05kgplgyYN6iNQLCXcT-_5YWLMINdDjDYgrm9ZIf2zQ00XZyXvaVNrxrQ"}\n',
  'oidc-1a8b428897c08c02449147b77b0572e9.json':
    '{"v":1,"sealed":"AgE9fXt9O003nuZRYLxWr97KSdyBo13c0tFc_IjirdBAZaC9gsQ5QS0cnKVbYNw6UE0sbeHblThBkzLH_W-DbiEOBe29IIN8AhGtsMdIE7x1AluU0uZYNjdyvyYz0rXuUm0JclZa3k6VKkA_3rI0oPVA3pFgc6lriBVTYwk1lwfNbOs"}\n',
  'session-7fa0fd851061ceb2776eb2c833ad44b8.json':
    '{"v":1,"dialect":"teampass3","sealed":"AgFvwE1u2Xkih45i7OfxlfPmxL0vLUC6hOQo6f9yL3cOkqVO8l5VLxbRtzr7Q_4TJt41g4I46Fbafsx9CfoDs4HQZbHy8wVwf7jG"}\n',
};

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vaultline-caches-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function placeFiles(): Promise<void> {
  for (const [name, text] of Object.entries(WRITTEN_BEFORE))
    await writeFile(join(dir, name), text, { mode: 0o600 });
}

const oidcEnv = () =>
  readEnvironment({
    [ENV.url]: URL,
    [ENV.oidcToken]: OIDC_TOKEN,
    [ENV.oidcPolicy]: 'ci',
    [ENV.cacheDir]: dir,
  });

const tokens = (password = PASSWORD) =>
  fileTokenCache({ dir, url: URL, login: 'alice', credentials: { password, apiKey: API_KEY } });

describe('the sealed caches', () => {
  it('open the files written before sealedCache, under the same names', async () => {
    await placeFiles();
    expect(await rememberedKeyAnswer(dir, URL, API_KEY)).toEqual({ rules: 'vaultline', login: 'alice' });
    // Cached and alive (it expires in 2100): no exchange, so no server is asked.
    expect(await oidcApiKey(oidcEnv(), URL)).toEqual({
      apiKey: 'fixture-exchanged-key',
      expiresAt: 4102444800000,
      login: 'ci-bot',
    });
    const cache = tokens();
    expect(await cache.get()).toBe('fixture-session-token');
    expect(await cache.dialect()).toBe('teampass3');
    expect(tokenFilePath(dir, URL, 'alice')).toBe(join(dir, 'session-7fa0fd851061ceb2776eb2c833ad44b8.json'));
  });

  it('read them as empty with other secrets', async () => {
    await placeFiles();
    expect(await rememberedKeyAnswer(dir, URL, 'another-api-key-0123456789')).toBeUndefined();
    expect(await tokens('another-password').get()).toBeUndefined();
    expect(await tokens('another-password').dialect()).toBeUndefined();
  });

  it('write again as they did: the same names, nothing in clear but the dialect', async () => {
    await rememberKeyAnswer(dir, URL, API_KEY, { rules: 'teampass', login: 'bob' });
    const cache = fileTokenCache({
      dir,
      url: URL,
      login: 'alice',
      credentials: { password: PASSWORD, apiKey: API_KEY },
      dialect: async () => 'teampass3',
    });
    await cache.set('new-session-token-0123456789');
    expect((await readdir(dir)).sort()).toEqual(
      Object.keys(WRITTEN_BEFORE).filter((name) => !name.startsWith('oidc')),
    );
    for (const name of await readdir(dir)) {
      const text = await readFile(join(dir, name), 'utf8');
      for (const secret of [API_KEY, PASSWORD, 'new-session-token-0123456789', 'bob', 'alice'])
        expect(text).not.toContain(secret);
    }
    expect(await rememberedKeyAnswer(dir, URL, API_KEY)).toEqual({ rules: 'teampass', login: 'bob' });
    expect(await tokens().get()).toBe('new-session-token-0123456789');
    expect(await tokens().dialect()).toBe('teampass3');
    await cache.set(undefined);
    expect(await readdir(dir)).toEqual(['key-8b76eca10fcb69c50f248c7df95034be.json']);
  });

  it('forget the OIDC key of a vault and policy', async () => {
    await placeFiles();
    await forgetOidcKey(oidcEnv(), URL);
    expect((await readdir(dir)).some((name) => name.startsWith('oidc-'))).toBe(false);
  });
});
