/**
 * `vaultline://` references resolved on TeamPass 3 through the one client, against the TeamPass 3
 * fake over HTTP: ids, paths (20 folders deep, hostile titles), the `otp` field, attachments that
 * do not exist there, and rights for the signed-in login.
 */

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WireClient } from '../src/client/types.ts';
import { formatReference } from '../src/references/reference.ts';
import {
  type ResolvedReference,
  type ResolvedValue,
  resolveReferences,
  type UnresolvedReference,
} from '../src/references/resolve-references.ts';
import { searchItems } from '../src/search.ts';
import { normalizeTotp, totpAt } from '../src/testing/teampass3/totp.ts';
import { startTeamPass3Fake, type TeamPass3Fake } from '../src/testing.ts';
import { vaultClientOf } from '../src/vault/client.ts';
import { createWireClient } from '../src/vault/wire-client.ts';

const ALICE = { login: 'alice', password: 'Al1ce-pw', apiKey: 'aliceKeyAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' };
const BOB = { login: 'bob', password: 'B0b-pw', apiKey: 'bobKeyBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB' };
const SECRET = 'JBSWY3DPEHPK3PXP';
const LEVELS = Array.from({ length: 20 }, (_, j) => `Level ${j + 1}`);
const ODD = `Café & "ops" 🚀`;
/** A folder title TeamPass stores with `&amp;`, and an item whose label and login it stores as `M&uuml;ller`. */
const EQUIPE = 'Équipe R&D';

let fake: TeamPass3Fake;
let alice: WireClient;
let bob: WireClient;

beforeAll(async () => {
  let tree: { title: string; children?: unknown[] } = { title: LEVELS.at(-1)! };
  for (let level = LEVELS.length - 1; level >= 1; level--)
    tree = { title: `Level ${level}`, children: [tree] };
  fake = await startTeamPass3Fake({
    seed: {
      folders: [
        { id: 1, title: 'Shared' },
        { id: 2, title: ODD },
        tree as { title: string },
        { id: 30, title: EQUIPE, parent: 1 },
      ],
      roles: [
        {
          name: 'Devs',
          folders: {
            Shared: 'W',
            [ODD]: 'W',
            [`Shared/${EQUIPE}`]: 'W',
            ...Object.fromEntries(LEVELS.map((_, i) => [LEVELS.slice(0, i + 1).join('/'), 'W' as const])),
          },
        },
        { name: 'Ops', folders: { Shared: 'R' } },
      ],
      users: [
        { ...ALICE, roles: ['Devs'] },
        { ...BOB, roles: ['Ops'] },
      ],
      items: [
        { id: 1, label: 'db', folder: 'Shared', password: 's3cret', login: 'dbadmin', totp: SECRET },
        { id: 2, label: 'Tom & Jerry 😀', folder: ODD, password: 'cartoon' },
        { id: 3, label: 'deep', folder: LEVELS.join('/'), password: 'deep-pw' },
        { id: 13, label: 'Müller Zugang', folder: 30, password: 'müller-pw-1', login: 'müller' },
      ],
    },
  });
  const options = { baseUrl: fake.url, retry: { retries: 0 }, clock: { now: () => fake.clock.now() } };
  alice = createWireClient({ ...options, auth: ALICE });
  bob = createWireClient({ ...options, auth: BOB, dialect: 'teampass3' });
});
afterAll(async () => {
  await alice.dispose();
  await bob.dispose();
  await fake.close();
});
beforeEach(() => fake.resetCounters());

function ok(result: ResolvedReference | undefined): ResolvedValue {
  if (!result?.ok)
    throw new Error(`expected a value, got ${(result as UnresolvedReference)?.error?.message}`);
  return result;
}

describe('references on TeamPass 3', () => {
  it('resolves ids, paths 20 folders deep and hostile titles for the signed-in login', async () => {
    const login = (await alice.identity()).login!;
    const results = await resolveReferences(
      vaultClientOf(alice),
      [
        'vaultline://1/password',
        'vaultline://3/login',
        formatReference({ kind: 'path', folders: LEVELS, label: 'deep', field: 'password' }),
        formatReference({ kind: 'path', folders: [ODD], label: 'Tom & Jerry 😀', field: 'password' }),
        'vaultline://Shared/db/login',
      ],
      { login },
    );
    expect(results.map((result) => ok(result).value)).toEqual([
      's3cret',
      '',
      'deep-pw',
      'cartoon',
      'dbadmin',
    ]);
    expect(ok(results[2]).item.path).toEqual(LEVELS);
    expect(fake.signIns('alice')).toBe(1);
  });

  it('resolves otp to the current code, with the seconds it stays valid', async () => {
    const [code, none] = await resolveReferences(vaultClientOf(alice), [
      'vaultline://1/otp',
      'vaultline://2/otp',
    ]);
    const expected = totpAt(normalizeTotp(SECRET, 'sha1', 6, 30), Math.floor(fake.clock.now() / 1000));
    expect(ok(code)).toMatchObject({ value: expected.code, secondsLeft: expected.expiresIn });
    // Item 2 says it has no TOTP secret: no call is made for it.
    expect(none).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect((none as UnresolvedReference).error.message).toBe(
      'vaultline://2/otp: item 2 has no one-time code (TOTP).',
    );
    expect(fake.requests.filter((r) => r.url.includes('/item/getOtp'))).toHaveLength(1);
  });

  it('checks otp references without reading a code when values are not asked for', async () => {
    const [code, none] = await resolveReferences(
      vaultClientOf(alice),
      ['vaultline://1/otp', 'vaultline://2/otp'],
      {
        values: false,
      },
    );
    expect(ok(code)).toMatchObject({ value: '', secondsLeft: undefined, item: { id: 1, label: 'db' } });
    expect(none).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(fake.requests.filter((r) => r.url.includes('/item/getOtp'))).toHaveLength(0);
  });

  it('says attachments are unsupported, and keeps "not found or not permitted" per reference', async () => {
    const results = await resolveReferences(
      vaultClientOf(bob),
      ['vaultline://1/file:notes.txt', 'vaultline://2/password', 'vaultline://1/password'],
      { login: 'bob' },
    );
    expect(results[0]).toMatchObject({ ok: false, error: { code: 'unsupported' } });
    expect(results[1]).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(ok(results[2]).value).toBe('s3cret');
    expect(JSON.stringify(results.slice(0, 2))).not.toContain('cartoon');
  });

  it("refuses to act for another login than the signed-in one, by the server's rules", async () => {
    await expect(
      resolveReferences(vaultClientOf(alice), ['vaultline://Shared/db/password'], { login: 'bob' }),
    ).rejects.toMatchObject({ code: 'unsupported' });
  });
});

describe('accented text on TeamPass 3 (stored as M&uuml;ller)', () => {
  it('stores the label and login with named entities, as TeamPass 3.2.1.5 does', () => {
    expect(fake.item(13)).toMatchObject({ label: 'M&uuml;ller Zugang', login: 'm&uuml;ller' });
  });

  it('resolves id and path references to the text as typed', async () => {
    const results = await resolveReferences(
      vaultClientOf(alice),
      [
        'vaultline://13/login',
        formatReference({
          kind: 'path',
          folders: ['Shared', EQUIPE],
          label: 'Müller Zugang',
          field: 'login',
        }),
        formatReference({
          kind: 'path',
          folders: ['Shared', EQUIPE],
          label: 'Müller Zugang',
          field: 'password',
        }),
      ],
      { login: 'alice' },
    );
    expect(results.map((result) => ok(result).value)).toEqual(['müller', 'müller', 'müller-pw-1']);
    expect(ok(results[0]).item).toMatchObject({ label: 'Müller Zugang', path: ['Shared', EQUIPE] });
  });

  it("finds the item by its accented label, through TeamPass's label search and the core's", async () => {
    expect((await alice.findItems({ folderIds: [30], query: 'müller' })).map((item) => item.label)).toEqual([
      'Müller Zugang',
    ]);
    const found = await searchItems(alice, { folderIds: [30], text: 'müller zugang' });
    expect(found.items.map((item) => [item.id, item.label, item.login])).toEqual([
      [13, 'Müller Zugang', 'müller'],
    ]);
  });
});
