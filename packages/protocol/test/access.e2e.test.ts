import { inspect } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAccessChecker } from '../src/access.ts';
import type { WireClient } from '../src/client/types.ts';
import { VaultError } from '../src/errors.ts';
import { ACCESS_TYPES, RIGHTS } from '../src/rights.ts';
import { type ReplayServer, startReplayServer } from '../src/testing/teampass-replay-server.ts';
import { vaultClientOf } from '../src/vault/client.ts';
import type { VaultClient } from '../src/vault/types.ts';
import { createWireClient } from '../src/vault/wire-client.ts';

const KEY = 'tpAccessKey0123456789abcdefghijklmnopqr';

let server: ReplayServer;
let vault: WireClient;
/** The same connection as the domain client the checker reads. */
let domain: VaultClient;
/** Right → the folder and item created for it. */
const seeded = new Map<string, { folderId: number; itemId: number; password: string }>();

beforeAll(async () => {
  server = await startReplayServer({ apiKey: KEY });
  vault = createWireClient({ baseUrl: server.url, auth: KEY, retry: { retries: 0 } });
  domain = vaultClientOf(vault);
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

/** The operations the replay server saw, e.g. `userfolders/bob`, `items/12;13`. */
function seen(): string[] {
  return server.requests.map((request) =>
    request.url.split('?')[0]!.replace(/^\/api\/index\.php\/read\//, ''),
  );
}

/** No request read a user's item list (read/userpw carries every password of the user). */
function expectNoItemList(): void {
  expect(server.requests.filter((request) => request.url.includes('/read/userpw/'))).toEqual([]);
}

function seed(right: string) {
  const entry = seeded.get(right);
  if (!entry) throw new Error(`no seed for ${right}`);
  return entry;
}

describe('createAccessChecker', () => {
  // Driven by the core's rights table: the checker answers what the table says, row by row.
  it.each(ACCESS_TYPES.map((right) => [right, RIGHTS[right]] as const))(
    'on a %s folder: %o, from the folder rights and the named item only',
    async (right, allowed) => {
      const checker = createAccessChecker(domain);
      const { itemId, folderId } = seed(right);
      expect(await checker.canRead('bob', itemId)).toBe(allowed.read);
      expect(await checker.canAdd('bob', folderId)).toBe(allowed.add);
      expect(await checker.canWrite('bob', itemId)).toBe(allowed.edit);
      expect(await checker.canDelete('bob', { id: itemId, folderId })).toBe(allowed.delete);
      // The folders once; the item by its id for each decision without a folder; nothing else.
      const item = `items/${itemId}`;
      expect(seen()).toEqual(['userfolders/bob', item, item]);
    },
  );

  it('offers an NE user add and delete but not edit', async () => {
    const checker = createAccessChecker(domain);
    const { itemId, folderId } = seed('NE');
    expect(await checker.canAdd('bob', folderId)).toBe(true);
    expect(await checker.canDelete('bob', itemId)).toBe(true);
    expect(await checker.canWrite('bob', itemId)).toBe(false);
    expectNoItemList();
  });

  it('decides on the folder a read gave without reading anything but the folder rights', async () => {
    const checker = createAccessChecker(domain);
    const w = seed('W');
    const r = seed('R');
    expect(await checker.canWrite('bob', { id: w.itemId, folderId: w.folderId })).toBe(true);
    expect(await checker.canRead('bob', { id: r.itemId, folderId: r.folderId })).toBe(true);
    expect(await checker.canWrite('bob', { id: r.itemId, folderId: r.folderId })).toBe(false);
    expect(await checker.canRead('bob', { id: 987_654, folderId: r.folderId })).toBe(true);
    expect(seen()).toEqual(['userfolders/bob']);
  });

  it('grants nothing, reading included, on a right it does not know (read/userpw would list the item)', async () => {
    const checker = createAccessChecker(domain);
    const { itemId, folderId } = seed('SUPERUSER');
    expect((await checker.load('bob')).folders.get(folderId)?.accessType).toBe('none');
    expect(await checker.canRead('bob', itemId)).toBe(false);
    expect(await checker.canRead('bob', { id: itemId, folderId })).toBe(false);
    expect(await checker.canWrite('bob', itemId)).toBe(false);
    expect(await checker.canDelete('bob', itemId)).toBe(false);
    expectNoItemList();
    // The legacy list does name it: the checker chose to deny.
    expect((await vault.readUserItems({ login: 'bob' })).map((item) => item.id)).toContain(itemId);
  });

  it('keeps forbidden items forbidden, denies unknown ids and unknown users', async () => {
    const checker = createAccessChecker(domain);
    const hidden = seed('hidden');
    expect(await checker.canRead('bob', hidden.itemId)).toBe(false);
    expect(await checker.canRead('bob', { id: hidden.itemId, folderId: hidden.folderId })).toBe(false);
    expect(await checker.canRead('bob', 424_242)).toBe(false);
    expect(await checker.canWrite('bob', 424_242)).toBe(false);
    await expect(checker.canRead('nobody', 1)).rejects.toMatchObject({ code: 'not_found' });
    // Only the named items were read; an unknown id reads nothing but itself.
    expect(seen()).toEqual([
      'userfolders/bob',
      `items/${hidden.itemId}`,
      'items/424242',
      'items/424242',
      'userfolders/nobody',
    ]);
  });

  it("denies items of a personal folder (TeamPass 2 names them in neither read) without reading the user's list", async () => {
    const checker = createAccessChecker(domain);
    const { id: personal } = await vault.addFolder({ folder: { title: 'personal of bob' } });
    // TeamPass's personal folders: flagged, titled with the owner's user id, in no role.
    Object.assign(server.folders.get(String(personal))!, { personal: '1', title: '7' });
    const { id: itemId } = await vault.addItem({
      item: { label: 'bob personal', password: 'bob-own-pw', folderId: personal },
    });
    server.reset();
    expect(await checker.canRead('bob', itemId)).toBe(false);
    expect(await checker.canWrite('bob', itemId)).toBe(false);
    expect(await checker.canRead('bob', { id: itemId, folderId: personal })).toBe(false);
    expectNoItemList();
    // TeamPass answers its password empty: denying hides nothing a person could have used.
    expect((await vault.readItems({ ids: [itemId] }))[0]?.password).toBe('');
  });

  it('denies items of a role folder that read/userfolders leaves out (title "0"), though read/userpw lists them', async () => {
    const checker = createAccessChecker(domain);
    const { id: folder } = await vault.addFolder({ folder: { title: 'will be 0' } });
    const { id: itemId } = await vault.addItem({
      item: { label: 'in a folder titled 0', password: 'zero-pw', folderId: folder },
    });
    server.folders.get(String(folder))!.title = '0';
    server.users.get('bob')!.rights[String(folder)] = 'W';
    try {
      server.reset();
      expect(await checker.canRead('bob', itemId)).toBe(false);
      expect(await checker.canRead('bob', { id: itemId, folderId: folder })).toBe(false);
      expect((await checker.folders('bob')).map((entry) => entry.id)).not.toContain(folder);
      expectNoItemList();
      expect((await vault.readUserItems({ login: 'bob' })).map((item) => item.id)).toContain(itemId);
    } finally {
      delete server.users.get('bob')!.rights[String(folder)];
    }
  });

  it("trusts the item's own record over nothing: a bare id is placed by reading that item", async () => {
    const checker = createAccessChecker(domain);
    const readOnly = seed('R');
    const writable = seed('W');
    expect(await checker.canWrite('bob', readOnly.itemId)).toBe(false);
    expect(await checker.canWrite('bob', writable.itemId)).toBe(true);
    expect(seen()).toEqual(['userfolders/bob', `items/${readOnly.itemId}`, `items/${writable.itemId}`]);
  });

  it('filters readable items, keeping order, reading only the items that come without a folder, in one call', async () => {
    const checker = createAccessChecker(domain);
    const refs = [
      { id: seed('hidden').itemId, tag: 'hidden' },
      { id: seed('R').itemId, tag: 'R' },
      { id: 777_777, folderId: seed('NE').folderId, tag: 'new in NE' },
      { id: 777_778, folderId: seed('hidden').folderId, tag: 'new in hidden' },
      { id: seed('W').itemId, tag: 'W' },
      { id: 777_779, tag: 'unknown' },
    ];
    expect((await checker.filterReadable('bob', refs)).map((ref) => ref.tag)).toEqual([
      'R',
      'new in NE',
      'W',
    ]);
    expect(seen()).toEqual([
      'userfolders/bob',
      `items/${seed('hidden').itemId};${seed('R').itemId};${seed('W').itemId};777779`,
    ]);
    server.reset();
    // All with folders: the folder rights alone.
    expect(await checker.filterReadable('bob', [{ id: 1, folderId: seed('W').folderId }])).toHaveLength(1);
    expect(seen()).toEqual([]);
  });

  it('reads no item for a user whose folders grant nothing', async () => {
    server.users.set('readless', { rights: { [String(seed('SUPERUSER').folderId)]: 'SUPERUSER' } });
    const checker = createAccessChecker(domain);
    expect(await checker.canRead('readless', seed('W').itemId)).toBe(false);
    expect(await checker.filterReadable('readless', [{ id: seed('W').itemId }])).toEqual([]);
    expect(seen()).toEqual(['userfolders/readless']);
  });

  it('fails closed when the vault answers garbage (TeamPass SQL text for a user without roles)', async () => {
    server.users.set('norole', { rights: {} });
    const checker = createAccessChecker(domain);
    const error = await checker.canRead('norole', 1).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(VaultError);
    expect((error as VaultError).code).toBe('invalid_response');
  });

  it('keeps rights for the TTL, reloads after it, and on invalidate', async () => {
    let clock = 1_000_000;
    const checker = createAccessChecker(domain, { ttlMs: 5_000, now: () => clock });
    const folders = () => seen().filter((op) => op.startsWith('userfolders/')).length;
    const w = { id: 1, folderId: seed('W').folderId };
    await checker.canRead('bob', w);
    expect(seen()).toEqual(['userfolders/bob']);
    // Kept for the TTL inclusive (lru-cache's rule), gone one ms later.
    clock += 5_000;
    await checker.canWrite('bob', w);
    await checker.filterReadable('bob', [w]);
    expect(folders()).toBe(1);
    clock += 1;
    await checker.canDelete('bob', w);
    expect(folders()).toBe(2);
    checker.invalidate('bob');
    await checker.canRead('bob', w);
    expect(folders()).toBe(3);
    await checker.canRead('alice', w);
    expect(folders()).toBe(4);
    checker.invalidate();
    await checker.canRead('bob', w);
    await checker.canRead('alice', w);
    expect(folders()).toBe(6);
    expectNoItemList();
  });

  it('sees a new grant only after the TTL or invalidate', async () => {
    let clock = 1_000_000;
    const checker = createAccessChecker(domain, { ttlMs: 1_000, now: () => clock });
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
    const checker = createAccessChecker(domain);
    await checker.rightOn('bob', 1);
    await checker.rightOn('bob', 1);
    expect(server.requests).toHaveLength(1);
  });

  it('deduplicates concurrent loads of one user', async () => {
    const checker = createAccessChecker(domain);
    const results = await Promise.all([
      checker.canRead('bob', { id: seed('R').itemId, folderId: seed('R').folderId }),
      checker.canWrite('bob', { id: seed('W').itemId, folderId: seed('W').folderId }),
      checker.canDelete('bob', { id: seed('ND').itemId, folderId: seed('ND').folderId }),
      checker.load('bob'),
      checker.filterReadable('bob', [{ id: seed('NE').itemId, folderId: seed('NE').folderId }]),
    ]);
    expect(results.slice(0, 3)).toEqual([true, true, false]);
    expect(server.requests).toHaveLength(1);
  });

  it('never fails callers when rights are invalidated while they load (no "deleted")', async () => {
    const checker = createAccessChecker(domain);
    // Each load takes a while, so invalidations land while loads are under way.
    server.fault({
      match: (request) => request.url.includes('/read/userfolders/'),
      reply: {
        delayMs: 30,
        body: JSON.stringify({
          [String(seed('W').folderId)]: {
            id: String(seed('W').folderId),
            title: 'folder W',
            level: '1',
            access_type: 'W',
          },
        }),
      },
      times: 1_000,
    });
    const w = { id: seed('W').itemId, folderId: seed('W').folderId };
    const burst: Promise<unknown>[] = [];
    for (let round = 0; round < 10; round++) {
      burst.push(checker.load('bob'), checker.canRead('bob', w), checker.filterReadable('bob', [w]));
      await new Promise((resolve) => setTimeout(resolve, 5));
      checker.invalidate(round % 2 === 0 ? 'bob' : undefined);
      burst.push(checker.canWrite('bob', w), checker.folders('bob'));
    }
    const settled = await Promise.allSettled(burst);
    expect(settled.filter((result) => result.status === 'rejected')).toEqual([]);
    expect(settled.filter((result) => result.status === 'fulfilled' && result.value === false)).toEqual([]);
    // After an invalidation, the next caller reads again: it does not get the load started before.
    const before = server.requests.length;
    checker.invalidate('bob');
    await checker.canRead('bob', w);
    expect(server.requests.length).toBe(before + 1);
  });

  it('does not cache a failed load', async () => {
    const checker = createAccessChecker(domain);
    server.fault({ reply: { status: 503, body: '' }, times: 1 });
    await expect(checker.load('bob')).rejects.toMatchObject({ code: 'server' });
    expect(await checker.canRead('bob', seed('R').itemId)).toBe(true);
  });

  it('never keeps a password, not even of the items it read to place them', async () => {
    const checker = createAccessChecker(domain);
    const access = await checker.load('bob');
    expect(
      await checker.filterReadable(
        'bob',
        [...seeded.values()].map((entry) => ({ id: entry.itemId })),
      ),
    ).toHaveLength(5);
    const shown = `${inspect(access, { depth: 10, maxArrayLength: null, maxStringLength: null })}${inspect(checker, { depth: 10, showHidden: true })}`;
    for (const { password } of seeded.values()) expect(shown).not.toContain(password);
    expect(shown).not.toContain('seeded-password');
    // Folder records are kept whole (their raw record has no password); item records are not kept.
    expect(shown).not.toMatch(/\bpw\b|password/);
    expect(access.folders.get(seed('W').folderId)?.raw).toMatchObject({ access_type: 'W' });
    expect(Object.keys(access)).toEqual(['login', 'folders', 'loadedAt']);
    expectNoItemList();
  });

  it('gives the folders whole, in the vault order, and the right on each', async () => {
    const checker = createAccessChecker(domain);
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

  it('keeps at most maxUsers users', async () => {
    const checker = createAccessChecker(domain, { maxUsers: 1 });
    await checker.folders('bob');
    await checker.folders('alice');
    await checker.folders('bob');
    expect(server.requests).toHaveLength(3);
  });
});
