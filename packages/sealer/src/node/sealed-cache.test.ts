import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { jsonCodec, type SealedCacheCodec, sealedCache } from './sealed-cache.ts';
import { sealedFileName, sealingContext, writeSealedFile } from './sealed-file.ts';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vaultline-sealed-cache-'));
});
afterEach(async () => {
  await chmod(dir, 0o700).catch(() => undefined);
  await rm(dir, { recursive: true, force: true });
});

const URL = 'http://127.0.0.1:8200';
const SECRET = 'material-correct-horse-battery';
const KeySchema = v.object({ apiKey: v.string(), expiresAt: v.number() });
const keys = sealedCache({
  label: 'test key cache v1',
  prefix: 'key',
  what: 'test key',
  codec: jsonCodec(KeySchema),
});
const VALUE = { apiKey: 'cached-api-key-0123456789', expiresAt: 1_700_000_000_000 };

/**
 * A codec with a clear field authenticated with the sealed text, as the session token's: `kind`
 * (not `tag`, a field of the format before the sealer).
 */
const kinded: SealedCacheCodec<
  { token: string; kind: string | undefined },
  { kind: v.OptionalSchema<v.StringSchema<undefined>, undefined> }
> = {
  clear: { kind: v.optional(v.string()) },
  encode: ({ token, kind }) => ({ text: token, clear: kind === undefined ? {} : { kind } }),
  decode: (text, { kind }) => (text === '' ? undefined : { token: text, kind }),
  aad: (context, { kind }) => Buffer.from(JSON.stringify([context, kind ?? null])),
};

describe('sealed caches', () => {
  it('keep a value per vault and scope, sealed: no secret or value in clear, mode 0600', async () => {
    const file = keys({ dir, url: URL, scope: 'alice' });
    expect(await file.get(SECRET)).toBeUndefined();
    expect(await file.set(SECRET, VALUE)).toEqual(VALUE);
    expect(await file.get(SECRET)).toEqual(VALUE);
    const names = await readdir(dir);
    expect(names).toEqual([sealedFileName('key', sealingContext('test key cache v1', URL, 'alice'))]);
    expect(join(dir, names[0]!)).toBe(file.path);
    const text = await readFile(file.path, 'utf8');
    for (const clear of [SECRET, VALUE.apiKey, 'alice', '127.0.0.1', 'expiresAt'])
      expect(text).not.toContain(clear);
    expect((await stat(file.path)).mode & 0o777).toBe(0o600);
    // The URL's final slash and the scope's case name the same file; another scope or vault, another.
    expect(await keys({ dir, url: `${URL}/`, scope: 'ALICE' }).get(SECRET)).toEqual(VALUE);
    expect(await keys({ dir, url: URL, scope: 'bob' }).get(SECRET)).toBeUndefined();
    expect(await keys({ dir, url: 'http://127.0.0.1:8201', scope: 'alice' }).get(SECRET)).toBeUndefined();
  });

  it('read another secret’s, another format’s, a tampered or a foreign file as empty', async () => {
    const file = keys({ dir, url: URL, scope: '' });
    await file.set(SECRET, VALUE);
    expect(await file.get('another secret')).toBeUndefined();
    // Another format's file under this name: its label is in the context, so it does not open.
    const other = sealedCache({ label: 'other v1', prefix: 'key', what: 'x', codec: jsonCodec(KeySchema) });
    const context = sealingContext('other v1', URL, '');
    await writeSealedFile(file.path, JSON.stringify(VALUE), {
      material: SECRET,
      context,
      aad: Buffer.from(context),
    });
    expect(await other({ dir, url: URL, scope: '' }).get(SECRET)).toBeUndefined();
    expect(await file.get(SECRET)).toBeUndefined();
    // A changed byte.
    await file.set(SECRET, VALUE);
    const record = JSON.parse(await readFile(file.path, 'utf8')) as { sealed: string };
    const bytes = Buffer.from(record.sealed, 'base64url');
    bytes[bytes.length - 1]! ^= 1;
    await writeFile(file.path, JSON.stringify({ ...record, sealed: bytes.toString('base64url') }), {
      mode: 0o600,
    });
    expect(await file.get(SECRET)).toBeUndefined();
    // Not JSON; sealed right but not of the schema; readable by others.
    await writeFile(file.path, 'not json', { mode: 0o600 });
    expect(await file.get(SECRET)).toBeUndefined();
    const own = sealingContext('test key cache v1', URL, '');
    await writeSealedFile(file.path, JSON.stringify({ apiKey: 7 }), {
      material: SECRET,
      context: own,
      aad: Buffer.from(own),
    });
    expect(await file.get(SECRET)).toBeUndefined();
    await file.set(SECRET, VALUE);
    await chmod(file.path, 0o644);
    expect(await file.get(SECRET)).toBeUndefined();
  });

  it('open the files written before it: same name, same sealing', async () => {
    const context = sealingContext('test key cache v1', URL, 'alice');
    const path = join(dir, sealedFileName('key', context));
    await writeSealedFile(path, JSON.stringify(VALUE), {
      material: SECRET,
      context,
      aad: Buffer.from(context),
    });
    expect(await keys({ dir, url: URL, scope: 'alice' }).get(SECRET)).toEqual(VALUE);
  });

  it('keep clear fields beside the value, authenticated with it', async () => {
    const tokens = sealedCache({ label: 'test token v1', prefix: 'session', what: 'token', codec: kinded });
    const file = tokens({ dir, url: URL, scope: 'alice' });
    let asked = 0;
    const made = await file.set(SECRET, async () => {
      asked += 1;
      return { token: 'tok-0123456789', kind: 'teampass3' };
    });
    expect(made).toEqual({ token: 'tok-0123456789', kind: 'teampass3' });
    expect(asked).toBe(1);
    const record = JSON.parse(await readFile(file.path, 'utf8')) as Record<string, unknown>;
    expect(record.kind).toBe('teampass3');
    expect(JSON.stringify(record)).not.toContain('tok-0123456789');
    expect(await file.get(SECRET)).toEqual({ token: 'tok-0123456789', kind: 'teampass3' });
    // The clear field changed: the file no longer opens.
    await writeFile(file.path, JSON.stringify({ ...record, kind: 'legacy' }), { mode: 0o600 });
    expect(await file.get(SECRET)).toBeUndefined();
    await file.set(SECRET, { token: '', kind: undefined });
    expect(await file.get(SECRET)).toBeUndefined();
  });

  it('write at best effort: a directory others may write, or none, is told and skipped', async () => {
    const warnings: string[] = [];
    const warn = (message: string) => warnings.push(message);
    // A file where the directory should be: the write fails, with its code.
    const blocked = join(dir, 'blocked');
    await writeFile(blocked, '');
    const failed = await keys({ dir: join(blocked, 'cache'), url: URL, scope: '' }).set(SECRET, VALUE, warn);
    expect(failed).toBeUndefined();
    expect(warnings).toEqual([`Could not cache the test key in ${join(blocked, 'cache')}: ENOTDIR.`]);
    // A symbolic link is not a private directory: nothing is asked or written.
    const { symlink } = await import('node:fs/promises');
    const real = join(dir, 'real');
    await mkdir(real, { mode: 0o700 });
    await symlink(real, join(dir, 'link'));
    let asked = false;
    const skipped = await keys({ dir: join(dir, 'link'), url: URL, scope: '' }).set(
      SECRET,
      async () => {
        asked = true;
        return VALUE;
      },
      warn,
    );
    expect(skipped).toBeUndefined();
    expect(asked).toBe(false);
    expect(warnings[1]).toBe(
      `Not caching the test key: ${join(dir, 'link')} is not a private directory of this user.`,
    );
    expect(await readdir(real)).toEqual([]);
    // Without a warning function, silently.
    expect(await keys({ dir: join(dir, 'link'), url: URL, scope: '' }).set(SECRET, VALUE)).toBeUndefined();
  });

  it('forget a file without the secret, and a missing one quietly', async () => {
    const file = keys({ dir, url: URL, scope: '' });
    await file.set(SECRET, VALUE);
    await file.forget();
    expect(await readdir(dir)).toEqual([]);
    await file.forget();
    expect(await file.get(SECRET)).toBeUndefined();
  });
});
