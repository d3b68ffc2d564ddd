import { inspect } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAccessChecker } from '../src/access.ts';
import type { VaultClient } from '../src/client/types.ts';
import { createVaultClient } from '../src/create-client.ts';
import { VaultError } from '../src/errors.ts';
import { ACCESS_TYPES, RIGHTS } from '../src/rights.ts';
import { type ReplayServer, startReplayServer } from '../src/testing/teampass-replay-server.ts';

const KEY = 'tpAccessKey0123456789abcdefghijklmnopqr';

let server: ReplayServer;
let vault: VaultClient;
/** Right → the folder and item created for it. */
const seeded = new Map<string, { folderId: number; itemId: number; password: string }>();

beforeAll(async () => {
  server = await startReplayServer({ apiKey: KEY });
  vault = createVaultClient({ baseUrl: server.url, apiKey: KEY, retries: 0 });
  const rights: Record<string, string> = {};
  for (const right of [...ACCESS_TYPES, 'SUPERUSER']) {
    const { id: folderId } = await vault.addFolder({ folder: { title: `folder ${right}` } });
    const password = `seeded-password-${right}-🔑`;
    const { id: itemId } = await vault.addItem({ item: { label: `item ${right}`, password, folderId } });
    seeded.set(right, { folderId, itemId, password });
    rights[String(folderId)] = right;
  }
  server.users.set('bob', { rights });
  const { id: hidden } = await vault.addFolder({ folder: { title: 'not for bob' } });
  const { id: hiddenItem } = await vault.addItem({
    item: { label: 'hidden item', password: 'hidden-pw', folderId: hidden },
  });
  seeded.set('hidden', { folderId: hidden, itemId: hiddenItem, password: 'hidden-pw' });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

function seed(right: string) {
  const entry = seeded.get(right);
  if (!entry) throw new Error(`no seed for ${right}`);
  return entry;
}

describe('createAccessChecker', () => {
  // Driven by the core's rights table: the checker answers what the table says, row by row.
  it.each(ACCESS_TYPES.map((right) => [right, RIGHTS[right]] as const))(
    'on a %s folder: %o',
    async (right, allowed) => {
      const checker = createAccessChecker(vault);
      const { itemId, folderId } = seed(right);
      expect(await checker.canRead('bob', itemId)).toBe(allowed.read);
      expect(await checker.canAdd('bob', folderId)).toBe(allowed.add);
      expect(await checker.canWrite('bob', itemId)).toBe(allowed.edit);
      expect(await checker.canDelete('bob', { id: itemId, folderId })).toBe(allowed.delete);
    },
  );

  it('offers an NE user add and delete but not edit', async () => {
    const checker = createAccessChecker(vault);
    const { itemId, folderId } = seed('NE');
    expect(await checker.canAdd('bob', folderId)).toBe(true);
    expect(await checker.canDelete('bob', itemId)).toBe(true);
    expect(await checker.canWrite('bob', itemId)).toBe(false);
  });

  it('grants nothing but reading a listed item on a right it does not know', async () => {
    const checker = createAccessChecker(vault);
    const { itemId, folderId } = seed('SUPERUSER');
    expect((await checker.load('bob')).folders.get(folderId)?.accessType).toBe('none');
    expect(await checker.canWrite('bob', itemId)).toBe(false);
    expect(await checker.canDelete('bob', itemId)).toBe(false);
    // read/userpw names the item, so the vault itself says bob may see it.
    expect(await checker.canRead('bob', itemId)).toBe(true);
    // An item the list does not name, in that folder, is not readable.
    expect(await checker.canRead('bob', { id: 987_654, folderId })).toBe(false);
  });

  it('denies unknown items, items of other folders, and unknown users', async () => {
    const checker = createAccessChecker(vault);
    const hidden = seed('hidden');
    expect(await checker.canRead('bob', hidden.itemId)).toBe(false);
    expect(await checker.canRead('bob', { id: hidden.itemId, folderId: hidden.folderId })).toBe(false);
    expect(await checker.canRead('bob', 424_242)).toBe(false);
    expect(await checker.canWrite('bob', 424_242)).toBe(false);
    await expect(checker.canRead('nobody', 1)).rejects.toMatchObject({ code: 'not_found' });
  });

  it("trusts the user's item list over the folder a caller claims", async () => {
    const checker = createAccessChecker(vault);
    const readOnly = seed('R');
    const writable = seed('W');
    expect(await checker.canWrite('bob', { id: readOnly.itemId, folderId: writable.folderId })).toBe(false);
    expect(await checker.canDelete('bob', { id: readOnly.itemId, folderId: writable.folderId })).toBe(false);
    // For an item the list does not name (e.g. created since), the caller's folder decides.
    expect(await checker.canWrite('bob', { id: 555_555, folderId: writable.folderId })).toBe(true);
  });

  it('filters readable items, keeping order', async () => {
    const checker = createAccessChecker(vault);
    const refs = [
      { id: seed('hidden').itemId, tag: 'hidden' },
      { id: seed('R').itemId, tag: 'R' },
      { id: 777_777, folderId: seed('NE').folderId, tag: 'new in NE' },
      { id: 777_778, folderId: seed('hidden').folderId, tag: 'new in hidden' },
      { id: seed('W').itemId, tag: 'W' },
    ];
    expect((await checker.filterReadable('bob', refs)).map((ref) => ref.tag)).toEqual([
      'R',
      'new in NE',
      'W',
    ]);
  });

  it('fails closed when the vault answers garbage (TeamPass SQL text for a user without roles)', async () => {
    server.users.set('norole', { rights: {} });
    const checker = createAccessChecker(vault);
    const error = await checker.canRead('norole', 1).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(VaultError);
    expect((error as VaultError).code).toBe('invalid_response');
  });

  it('keeps rights for the TTL, reloads after it, and on invalidate', async () => {
    let clock = 1_000_000;
    const checker = createAccessChecker(vault, { ttlMs: 5_000, now: () => clock });
    const count = () => server.requests.length;
    await checker.canRead('bob', 1);
    expect(server.requests.map((request) => request.url.split('?')[0])).toEqual(
      expect.arrayContaining(['/api/index.php/read/userfolders/bob', '/api/index.php/read/userpw/bob']),
    );
    expect(count()).toBe(2);
    // Kept for the TTL inclusive (lru-cache's rule), gone one ms later.
    clock += 5_000;
    await checker.canWrite('bob', 1);
    await checker.filterReadable('bob', [{ id: 1 }]);
    expect(count()).toBe(2);
    clock += 1;
    await checker.canDelete('bob', 1);
    expect(count()).toBe(4);
    checker.invalidate('bob');
    await checker.canRead('bob', 1);
    expect(count()).toBe(6);
    await checker.canRead('alice', 1);
    expect(count()).toBe(8);
    checker.invalidate();
    await checker.canRead('bob', 1);
    await checker.canRead('alice', 1);
    expect(count()).toBe(12);
  });

  it('sees a new grant only after the TTL or invalidate', async () => {
    let clock = 1_000_000;
    const checker = createAccessChecker(vault, { ttlMs: 1_000, now: () => clock });
    const hidden = seed('hidden');
    expect(await checker.canRead('bob', hidden.itemId)).toBe(false);
    server.users.get('bob')!.rights[String(hidden.folderId)] = 'R';
    try {
      expect(await checker.canRead('bob', hidden.itemId)).toBe(false);
      clock += 1_001;
      expect(await checker.canRead('bob', hidden.itemId)).toBe(true);
    } finally {
      delete server.users.get('bob')!.rights[String(hidden.folderId)];
    }
  });

  it('uses the default TTL of 30 s with the real clock', async () => {
    const checker = createAccessChecker(vault);
    await checker.canRead('bob', 1);
    await checker.canRead('bob', 1);
    expect(server.requests).toHaveLength(2);
  });

  it('deduplicates concurrent loads of one user', async () => {
    const checker = createAccessChecker(vault);
    const results = await Promise.all([
      checker.canRead('bob', seed('R').itemId),
      checker.canWrite('bob', seed('W').itemId),
      checker.canDelete('bob', seed('ND').itemId),
      checker.load('bob'),
      checker.filterReadable('bob', [{ id: seed('NE').itemId }]),
    ]);
    expect(results.slice(0, 3)).toEqual([true, true, false]);
    expect(server.requests).toHaveLength(2);
  });

  it('decides on folder rights alone without reading the item list (itemList: false)', async () => {
    const checker = createAccessChecker(vault, { itemList: false });
    const w = seed('W');
    const r = seed('R');
    expect(await checker.canWrite('bob', { id: w.itemId, folderId: w.folderId })).toBe(true);
    expect(await checker.canRead('bob', { id: r.itemId, folderId: r.folderId })).toBe(true);
    expect(await checker.canWrite('bob', { id: r.itemId, folderId: r.folderId })).toBe(false);
    // Without the item list, an item whose folder the caller does not give is unknown: denied.
    expect(await checker.canRead('bob', w.itemId)).toBe(false);
    expect(
      await checker.canRead('bob', { id: seed('hidden').itemId, folderId: seed('hidden').folderId }),
    ).toBe(false);
    expect(server.requests.map((request) => request.url.split('?')[0]!.split('/')[4])).toEqual([
      'userfolders',
    ]);
  });

  it('does not cache a failed load', async () => {
    const checker = createAccessChecker(vault);
    server.fault({ reply: { status: 503, body: '' }, times: 2 });
    await expect(checker.load('bob')).rejects.toMatchObject({ code: 'server' });
    expect(await checker.canRead('bob', seed('R').itemId)).toBe(true);
  });

  it('never keeps a password', async () => {
    const checker = createAccessChecker(vault);
    const access = await checker.load('bob');
    expect(access.items.size).toBe(6);
    const shown = `${inspect(access, { depth: 10, maxArrayLength: null, maxStringLength: null })}${inspect(checker, { depth: 10, showHidden: true })}`;
    for (const { password } of seeded.values()) expect(shown).not.toContain(password);
    expect(shown).not.toContain('seeded-password');
    // Folder records are kept whole (their raw record has no password); item records are not kept.
    expect(shown).not.toMatch(/\bpw\b|password/);
    expect(access.folders.get(seed('W').folderId)?.raw).toMatchObject({ access_type: 'W' });
    // The answer did carry them: the checker dropped them.
    const items = await vault.readUserItems({ login: 'bob' });
    expect(items.map((item) => item.password)).toContain(seed('W').password);
  });

  it('gives the folders whole, in the vault order, and the right on each, without the item list', async () => {
    const checker = createAccessChecker(vault);
    const folders = await checker.folders('bob');
    expect(folders.map((folder) => folder.accessType)).toEqual([...ACCESS_TYPES, 'none']);
    expect(folders[0]?.raw).toMatchObject({ title: 'folder W' });
    expect((await checker.rightOn('bob', seed('ND').folderId)).words).toBe('edit, no delete');
    expect((await checker.rightOn('bob', seed('hidden').folderId)).code).toBe('none');
    expect(await checker.canAdd('bob', seed('NDNE').folderId)).toBe(true);
    expect(await checker.canAdd('bob', seed('R').folderId)).toBe(false);
    // The copy returned is the caller's to change.
    folders.length = 0;
    expect(await checker.folders('bob')).toHaveLength(ACCESS_TYPES.length + 1);
    expect(server.requests.map((request) => request.url.split('?')[0])).toEqual([
      '/api/index.php/read/userfolders/bob',
    ]);
  });

  it("reads the item list only when the caller's folder does not decide (itemList: 'fallback')", async () => {
    const checker = createAccessChecker(vault, { itemList: 'fallback' });
    const urls = () => server.requests.map((request) => request.url.split('?')[0]!.split('/')[4]);
    const w = seed('W');
    const r = seed('R');
    const superuser = seed('SUPERUSER');
    expect(await checker.canRead('bob', { id: r.itemId, folderId: r.folderId })).toBe(true);
    expect(await checker.canWrite('bob', { id: w.itemId, folderId: w.folderId })).toBe(true);
    expect(await checker.filterReadable('bob', [{ id: w.itemId, folderId: w.folderId }])).toHaveLength(1);
    expect(urls()).toEqual(['userfolders']);
    // Not decided by the folder: the list is read, once, and names the item.
    expect(await checker.canRead('bob', { id: superuser.itemId, folderId: superuser.folderId })).toBe(true);
    expect(await checker.canRead('bob', superuser.itemId)).toBe(true);
    expect(await checker.canWrite('bob', { id: r.itemId, folderId: r.folderId })).toBe(false);
    expect(await checker.canRead('bob', seed('hidden').itemId)).toBe(false);
    // A caller that places a W item in the R folder: the list knows its real folder.
    expect(await checker.canWrite('bob', { id: w.itemId, folderId: r.folderId })).toBe(true);
    const refs = [
      { id: seed('hidden').itemId, folderId: seed('hidden').folderId },
      { id: superuser.itemId, folderId: superuser.folderId },
      { id: 888_888, folderId: w.folderId },
    ];
    expect((await checker.filterReadable('bob', refs)).map((ref) => ref.id)).toEqual([
      superuser.itemId,
      888_888,
    ]);
    expect(urls()).toEqual(['userfolders', 'userpw']);
  });

  /** A client whose first read/userfolders answer waits until `release` is called. */
  function heldClient() {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let held = 0;
    let arrived = () => {};
    const holding = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const client = createVaultClient({
      baseUrl: server.url,
      apiKey: KEY,
      retries: 0,
      fetch: async (input, init) => {
        if (
          String(input instanceof Request ? input.url : input).includes('/read/userfolders/') &&
          held++ === 0
        ) {
          arrived();
          await gate;
        }
        return fetch(input, init);
      },
    });
    return { client, release, holding };
  }

  it('answers a load in flight when the user is invalidated meanwhile, and reads afresh after', async () => {
    const { client, release, holding } = heldClient();
    const checker = createAccessChecker(client, { itemList: false });
    const r = seed('R');
    const ref = { id: r.itemId, folderId: r.folderId };
    const first = checker.canRead('bob', ref);
    await holding;
    checker.invalidate('bob');
    const second = checker.canRead('bob', ref);
    checker.invalidate();
    const third = checker.folders('bob');
    release();
    expect(await first).toBe(true);
    expect(await second).toBe(true);
    expect((await third).length).toBeGreaterThan(0);
    // The loads that started after each invalidation read the rights afresh.
    expect(server.requests.filter((request) => request.url.includes('/read/userfolders/'))).toHaveLength(3);
  });

  it('answers a load in flight when its user is evicted by others meanwhile', async () => {
    const { client, release, holding } = heldClient();
    const checker = createAccessChecker(client, { itemList: false, maxUsers: 1 });
    const first = checker.folders('bob');
    await holding;
    await checker.folders('alice').catch(() => []);
    release();
    expect((await first).length).toBeGreaterThan(0);
  });

  it('keeps at most maxUsers users', async () => {
    const checker = createAccessChecker(vault, { maxUsers: 1 });
    await checker.folders('bob');
    await checker.folders('alice');
    await checker.folders('bob');
    expect(server.requests).toHaveLength(3);
  });
});
