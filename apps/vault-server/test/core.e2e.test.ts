import {
  ACCESS_TYPES,
  createVaultClient,
  RIGHTS as RIGHTS_TABLE,
  type VaultClient,
} from '@vaultline/protocol';
import { encodeValue, encodeValueList } from '@vaultline/protocol/wire';
import { type PostgresCluster, startPostgresCluster } from '@vaultline/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestVault } from '../src/testing.ts';
import {
  clientOf,
  expectJsonError,
  expectNoSecrets,
  expectVaultError,
  rawRequest,
  STORES,
  startVaultOn,
} from './support/helpers.ts';

const MAX_FILE = 64 * 1024;

describe.each(STORES)('vault server core rules on %s', (store) => {
  let cluster: PostgresCluster | undefined;
  let vault: TestVault;
  let admin: VaultClient;
  const logLines: string[] = [];
  const secrets: string[] = [];

  const pw = (text: string) => {
    secrets.push(text);
    return text;
  };

  beforeAll(async () => {
    if (store === 'postgres') cluster = await startPostgresCluster();
    vault = await startVaultOn(store, cluster, { logLines, maxFileBytes: MAX_FILE });
    secrets.push(vault.adminKey);
    admin = clientOf(vault);
  });

  afterAll(async () => {
    await vault?.close();
    await cluster?.stop();
    expectNoSecrets(logLines, secrets);
  });

  describe('items', () => {
    it('stores every value, unicode and reserved characters included, and reads it back', async () => {
      const folder = await admin.addFolder({ folder: { title: 'Ünïcode 🗝️ folder' } });
      const item = {
        label: 'Ωmega «db» 🔐',
        password: pw('pä$$/wörd+;=?&#%00 🙂'),
        description: 'line 1\nline 2 — “quoted”',
        folderId: folder.id,
        login: 'rööt',
        email: 'ops@例え.jp',
        url: 'https://example.com/a?b=c&d=e#f',
        tags: 'a b',
      };
      const { id, status } = await admin.addItem({ item });
      expect(status).toBe('item added');
      const read = await admin.getItem(id);
      expect(read).toMatchObject({
        id,
        label: item.label,
        password: item.password,
        description: item.description,
        login: item.login,
        email: item.email,
        url: item.url,
        folderId: folder.id,
        path: ['Ünïcode 🗝️ folder'],
      });
      const raw = await rawRequest(vault.url, `/api/index.php/read/items/${id}?apikey=${vault.adminKey}`);
      expect(raw.contentType).toMatch(/application\/json/);
      expect(raw.headers['cache-control']).toBe('no-store');
      expect(raw.headers['x-content-type-options']).toBe('nosniff');
      const [record] = JSON.parse(raw.body) as Record<string, unknown>[];
      expect(record).toEqual({
        id: String(id),
        label: item.label,
        description: item.description,
        login: item.login,
        email: item.email,
        url: item.url,
        pw: item.password,
        folder_id: String(folder.id),
        path: 'Ünïcode 🗝️ folder',
      });
    });

    it('answers read/items in id order, collapses duplicates and leaves out unknown ids', async () => {
      const folder = await admin.addFolder({ folder: { title: 'Order' } });
      const a = await admin.addItem({
        item: { label: 'order a', password: pw('pw-order-a'), folderId: folder.id },
      });
      const b = await admin.addItem({
        item: { label: 'order b', password: pw('pw-order-b'), folderId: folder.id },
      });
      const items = await admin.readItems({ ids: [b.id, a.id, b.id, 999_999] });
      expect(items.map((i) => i.id)).toEqual([a.id, b.id]);
      expect(await admin.readItems({ ids: [999_998] })).toEqual([]);
      const raw = await rawRequest(vault.url, `/api/index.php/read/items/999998?apikey=${vault.adminKey}`);
      expect(raw.status).toBe(200);
      expect(raw.body).toBe('[]');
    });

    it('replaces all nine values on update and answers 404 for an unknown id', async () => {
      const folder = await admin.addFolder({ folder: { title: 'Updates' } });
      const other = await admin.addFolder({ folder: { title: 'Updates 2' } });
      const { id } = await admin.addItem({
        item: { label: 'upd', password: pw('pw-upd-1'), folderId: folder.id, login: 'x', url: 'u' },
      });
      const result = await admin.updateItem({
        id,
        item: { label: 'upd 2', password: pw('pw-upd-2'), folderId: other.id },
      });
      expect(result.status).toBe('item updated');
      expect(await admin.getItem(id)).toMatchObject({
        label: 'upd 2',
        password: 'pw-upd-2',
        login: '',
        url: '',
        folderId: other.id,
      });
      await admin.updateItemFields(id, { description: 'kept' });
      expect(await admin.getItem(id)).toMatchObject({
        label: 'upd 2',
        password: 'pw-upd-2',
        description: 'kept',
      });
      await expectVaultError(
        admin.updateItem({ id: 987_654, item: { label: 'n', password: 'p', folderId: folder.id } }),
        'not_found',
        404,
      );
      await expectVaultError(
        admin.updateItem({ id, item: { label: 'upd 3', password: 'p', folderId: 987_654 } }),
        'not_found',
        404,
      );
    });

    it('refuses a label similar to an existing one (case, accents, spaces) anywhere in the vault', async () => {
      const f1 = await admin.addFolder({ folder: { title: 'Dup 1' } });
      const f2 = await admin.addFolder({ folder: { title: 'Dup 2' } });
      const { id } = await admin.addItem({
        item: { label: 'Café Login', password: pw('pw-dup'), folderId: f1.id },
      });
      for (const label of ['Café Login', 'café login', 'CAFE LOGIN', ' Cafe Login  ']) {
        const error = await expectVaultError(
          admin.addItem({ item: { label, password: 'x', folderId: f2.id } }),
          'duplicate_label',
          409,
        );
        expect(error.serverMessage).toMatch(/Label already exists/);
      }
      const second = await admin.addItem({ item: { label: 'Cafe Logins', password: 'x', folderId: f2.id } });
      await expectVaultError(
        admin.updateItem({ id: second.id, item: { label: 'CAFÉ LOGIN', password: 'x', folderId: f2.id } }),
        'duplicate_label',
        409,
      );
      await admin.deleteItems({ ids: [id] });
      expect(
        (await admin.addItem({ item: { label: 'café login', password: 'x', folderId: f2.id } })).id,
      ).toBeGreaterThan(0);
    });

    it('rejects missing or invalid values with 400 and stores nothing', async () => {
      const folder = await admin.addFolder({ folder: { title: 'Invalid' } });
      await expectVaultError(
        admin.addItem({ item: { label: '  ', password: 'x', folderId: folder.id } }),
        'invalid_request',
        400,
      );
      await expectVaultError(
        admin.addItem({ item: { label: 'no pw', password: '', folderId: folder.id } }),
        'invalid_request',
        400,
      );
      await expectVaultError(
        admin.addItem({ item: { label: 'x'.repeat(501), password: 'x', folderId: folder.id } }),
        'invalid_request',
        400,
      );
      await expectVaultError(
        admin.addItem({ item: { label: 'nul\u0000', password: 'x', folderId: folder.id } }),
        'invalid_request',
        400,
      );
      await expectVaultError(
        admin.addItem({ item: { label: 'no folder', password: 'x', folderId: 424_242 } }),
        'not_found',
        404,
      );
      const values = ['lbl', 'pw', '', 'abc', '', '', '', '', '0'];
      const bad = await rawRequest(
        vault.url,
        `/api/index.php/add/item/${encodeValueList(values)}?apikey=${vault.adminKey}`,
      );
      expectJsonError(bad, 400, 'invalid_request');
      expect(await admin.readFolders({ ids: [folder.id] })).toEqual([]);
    });

    it('deletes items with the text OK, and deletes nothing when one id is unknown', async () => {
      const folder = await admin.addFolder({ folder: { title: 'Deletes' } });
      const a = await admin.addItem({ item: { label: 'del a', password: 'x', folderId: folder.id } });
      const b = await admin.addItem({ item: { label: 'del b', password: 'x', folderId: folder.id } });
      const raw = await rawRequest(vault.url, `/api/index.php/delete/item/${a.id}?apikey=${vault.adminKey}`);
      expect(raw.status).toBe(200);
      expect(raw.body).toBe('OK');
      await expectVaultError(admin.deleteItems({ ids: [b.id, 777_777] }), 'not_found', 404);
      expect((await admin.readItems({ ids: [b.id] })).length).toBe(1);
      expect(await admin.deleteItems({ ids: [b.id] })).toEqual({ status: 'OK' });
      expect(await admin.readItems({ ids: [a.id, b.id] })).toEqual([]);
    });
  });

  describe('folders', () => {
    it('accepts the one-blob and the per-value encodings and computes levels and paths', async () => {
      const top = await admin.addFolder({ folder: { title: 'Top', complexityLevel: 50, renewalPeriod: 6 } });
      const values = createVaultClientWith(vault, 'values');
      const mid = await values.addFolder({ folder: { title: 'Mid', parentId: top.id, complexityLevel: 60 } });
      const leaf = await admin.addFolder({ folder: { title: 'Leaf', parentId: mid.id } });
      const { id } = await admin.addItem({ item: { label: 'deep item', password: 'x', folderId: leaf.id } });
      expect((await admin.getItem(id)).path).toEqual(['Top', 'Mid', 'Leaf']);
      const raw = await rawRequest(
        vault.url,
        `/api/index.php/add/folder/${encodeValue('Raw blob;0;0;0;0')}?apikey=${vault.adminKey}`,
      );
      expect(JSON.parse(raw.body)).toMatchObject({ status: 'folder created' });
      await vault.admin.createUser({ login: 'leveluser' });
      await vault.admin.createRole({ name: 'levels' });
      await vault.admin.assignRole('leveluser', 'levels');
      for (const folder of [top, mid, leaf]) await vault.admin.grant('levels', folder.id, 'R');
      const folders = await admin.readUserFolders({ login: 'leveluser' });
      expect(folders.map((f) => [f.title, f.level, f.parentId ?? 0])).toEqual([
        ['Top', 1, 0],
        ['Mid', 2, top.id],
        ['Leaf', 3, mid.id],
      ]);
    });

    it('validates complexity, parent and title, and updates folders', async () => {
      await expectVaultError(
        admin.addFolder({ folder: { title: 'Bad', complexityLevel: 33 as 0 } }),
        'invalid_request',
        400,
      );
      await expectVaultError(
        admin.addFolder({ folder: { title: 'Orphan', parentId: 555_555 } }),
        'not_found',
        404,
      );
      await expectVaultError(admin.addFolder({ folder: { title: '   ' } }), 'invalid_request', 400);
      const folder = await admin.addFolder({ folder: { title: 'Renamed?' } });
      const result = await admin.updateFolder({
        id: folder.id,
        folder: { title: 'Renamed', complexityLevel: 90, renewalPeriod: 3 },
      });
      expect(result.status).toBe('folder updated');
      await expectVaultError(
        admin.updateFolder({ id: 555_555, folder: { title: 'x', complexityLevel: 0, renewalPeriod: 0 } }),
        'not_found',
        404,
      );
      const { id } = await admin.addItem({
        item: { label: 'in renamed', password: 'x', folderId: folder.id },
      });
      expect((await admin.getItem(id)).path).toEqual(['Renamed']);
    });

    it('refuses to delete a folder that holds items or sub-folders, and deletes a parent with its child', async () => {
      const parent = await admin.addFolder({ folder: { title: 'Del parent' } });
      const child = await admin.addFolder({ folder: { title: 'Del child', parentId: parent.id } });
      const holder = await admin.addFolder({ folder: { title: 'Del holder' } });
      await admin.addItem({ item: { label: 'held', password: 'x', folderId: holder.id } });
      const busy = await rawRequest(
        vault.url,
        `/api/index.php/delete/folder/${holder.id}?apikey=${vault.adminKey}`,
      );
      expectJsonError(busy, 409, 'invalid_request');
      const notEmpty = await rawRequest(
        vault.url,
        `/api/index.php/delete/folder/${parent.id}?apikey=${vault.adminKey}`,
      );
      expectJsonError(notEmpty, 409, 'invalid_request');
      expect(await admin.deleteFolders({ ids: [parent.id, child.id] })).toEqual({ status: 'OK' });
      await expectVaultError(admin.deleteFolders({ ids: [parent.id] }), 'not_found', 404);
    });
  });

  describe('access matrix: users × folders × rights', () => {
    // Driven by the core's one rights table (tested row by row in packages/protocol): the server
    // must allow exactly what each row says.
    const RIGHTS = ACCESS_TYPES;
    const EXPECT = Object.fromEntries(
      RIGHTS.map((right) => [
        right,
        { add: RIGHTS_TABLE[right].add, edit: RIGHTS_TABLE[right].edit, delete: RIGHTS_TABLE[right].delete },
      ]),
    ) as Record<(typeof RIGHTS)[number], { add: boolean; edit: boolean; delete: boolean }>;
    const folderOf: Record<string, number> = {};
    let hidden: number;
    let keys: Record<string, string>;

    beforeAll(async () => {
      for (const right of RIGHTS)
        folderOf[right] = (await admin.addFolder({ folder: { title: `Matrix ${right}` } })).id;
      hidden = (await admin.addFolder({ folder: { title: 'Matrix hidden' } })).id;
      keys = {};
      for (const right of RIGHTS) {
        const login = `m-${right.toLowerCase()}`;
        await vault.admin.createUser({ login, email: `${login}@example.com` });
        await vault.admin.createRole({ name: `role-${right}` });
        await vault.admin.assignRole(login, `role-${right}`);
        // Every user gets R on every matrix folder through a shared role, and its own right on one folder.
        await vault.admin.grant(`role-${right}`, folderOf[right]!, right);
        keys[right] = await vault.admin.createKey({ label: `matrix-${right}`, login });
        secrets.push(keys[right]);
      }
      await vault.admin.createRole({ name: 'matrix-readers' });
      for (const right of RIGHTS) await vault.admin.assignRole(`m-${right.toLowerCase()}`, 'matrix-readers');
      for (const right of RIGHTS) await vault.admin.grant('matrix-readers', folderOf[right]!, 'R');
    });

    for (const right of RIGHTS) {
      it(`a user with ${right} may ${
        Object.entries(EXPECT[right])
          .filter(([, v]) => v)
          .map(([k]) => k)
          .join(', ') || 'only read'
      }`, async () => {
        const user = clientOf(vault, keys[right]);
        const folderId = folderOf[right]!;
        const seeded = await admin.addItem({
          item: { label: `seed ${right}`, password: pw(`pw-seed-${right}`), folderId },
        });
        expect((await user.readItems({ ids: [seeded.id] })).map((i) => i.password)).toEqual([
          `pw-seed-${right}`,
        ]);
        expect((await user.readFolders({ ids: [folderId] })).map((i) => i.id)).toContain(seeded.id);

        const add = user.addItem({ item: { label: `by user ${right}`, password: 'x', folderId } });
        if (EXPECT[right].add) expect((await add).id).toBeGreaterThan(0);
        else await expectVaultError(add, 'forbidden', 403);

        const edit = user.updateItem({
          id: seeded.id,
          item: { label: `seed ${right} edited`, password: 'y', folderId },
        });
        if (EXPECT[right].edit) expect((await edit).status).toBe('item updated');
        else await expectVaultError(edit, 'forbidden', 403);

        const del = user.deleteItems({ ids: [seeded.id] });
        if (EXPECT[right].delete) expect(await del).toEqual({ status: 'OK' });
        else await expectVaultError(del, 'forbidden', 403);

        const folders = await user.readUserFolders({ login: `m-${right.toLowerCase()}` });
        expect(folders.find((f) => f.id === folderId)?.accessType).toBe(right);
        expect(folders.some((f) => f.id === hidden)).toBe(false);
      });
    }

    it('hides folders without a right: reads leave them out, writes answer 404', async () => {
      const user = clientOf(vault, keys.W);
      const secret = await admin.addItem({
        item: { label: 'hidden item', password: pw('pw-hidden'), folderId: hidden },
      });
      expect(await user.readItems({ ids: [secret.id] })).toEqual([]);
      expect(await user.readFolders({ ids: [hidden] })).toEqual([]);
      expect(await user.findItems({ folderIds: [hidden], query: 'hidden' })).toEqual([]);
      await expectVaultError(
        user.updateItem({ id: secret.id, item: { label: 'h', password: 'x', folderId: hidden } }),
        'not_found',
        404,
      );
      await expectVaultError(user.deleteItems({ ids: [secret.id] }), 'not_found', 404);
      await expectVaultError(
        user.addItem({ item: { label: 'into hidden', password: 'x', folderId: hidden } }),
        'not_found',
        404,
      );
      await expectVaultError(user.listFiles({ itemId: secret.id }), 'not_found', 404);
      const items = await user.readUserItems({ login: 'm-w' });
      expect(items.some((i) => i.id === secret.id)).toBe(false);
    });

    it('gives a user with several roles the most permissive right (ND + NE = W, R + NDNE = NDNE)', async () => {
      const folder = await admin.addFolder({ folder: { title: 'Union' } });
      const folder2 = await admin.addFolder({ folder: { title: 'Union 2' } });
      await vault.admin.createUser({ login: 'multi' });
      for (const [role, right, id] of [
        ['u-nd', 'ND', folder.id],
        ['u-ne', 'NE', folder.id],
        ['u-r', 'R', folder2.id],
        ['u-ndne', 'NDNE', folder2.id],
      ] as const) {
        await vault.admin.createRole({ name: role });
        await vault.admin.assignRole('multi', role);
        await vault.admin.grant(role, id, right);
      }
      const folders = await admin.readUserFolders({ login: 'multi' });
      expect(Object.fromEntries(folders.map((f) => [f.title, f.accessType]))).toEqual({
        Union: 'W',
        'Union 2': 'NDNE',
      });
      const key = await vault.admin.createKey({ label: 'multi-key', login: 'multi' });
      secrets.push(key);
      const user = clientOf(vault, key);
      const { id } = await user.addItem({
        item: { label: 'multi item', password: 'x', folderId: folder.id },
      });
      await user.updateItem({ id, item: { label: 'multi item 2', password: 'x', folderId: folder.id } });
      await user.deleteItems({ ids: [id] });
    });

    it('takes a right away on revoke', async () => {
      const user = clientOf(vault, keys.R);
      expect((await user.readUserFolders({ login: 'm-r' })).some((f) => f.id === folderOf.R)).toBe(true);
      await vault.admin.revoke('role-R', folderOf.R!);
      await vault.admin.revoke('matrix-readers', folderOf.R!);
      expect((await user.readUserFolders({ login: 'm-r' })).some((f) => f.id === folderOf.R)).toBe(false);
    });
  });

  describe('user-bound keys and personal folders', () => {
    let aliceKey: string;
    let bobKey: string;
    let aliceId: number;

    beforeAll(async () => {
      aliceId = (await vault.admin.createUser({ login: 'p-alice' })).id;
      await vault.admin.createUser({ login: 'p-bob' });
      aliceKey = await vault.admin.createKey({ label: 'p-alice-key', login: 'p-alice' });
      bobKey = await vault.admin.createKey({ label: 'p-bob-key', login: 'p-bob' });
      secrets.push(aliceKey, bobKey);
    });

    it("reads only the key's own user with read/userpw and read/userfolders", async () => {
      const alice = clientOf(vault, aliceKey);
      expect(await alice.readUserFolders({ login: 'p-alice' })).toEqual([]);
      await expectVaultError(alice.readUserItems({ login: 'p-bob' }), 'forbidden', 403);
      await expectVaultError(alice.readUserFolders({ login: 'p-bob' }), 'forbidden', 403);
      await expectVaultError(admin.readUserItems({ login: 'nobody-here' }), 'not_found', 404);
      const sql = await rawRequest(
        vault.url,
        `/api/index.php/read/userpw/x'%20OR%20'1'='1?apikey=${vault.adminKey}`,
      );
      expectJsonError(sql, 404, 'not_found');
    });

    it('lets a user create only their own personal folder, visible to them alone', async () => {
      const alice = clientOf(vault, aliceKey);
      const bob = clientOf(vault, bobKey);
      await expectVaultError(alice.addFolder({ folder: { title: 'Public by user' } }), 'forbidden', 403);
      await expectVaultError(
        bob.addFolder({ folder: { title: String(aliceId), personal: true } }),
        'forbidden',
        403,
      );
      await expectVaultError(
        alice.addFolder({ folder: { title: 'not-an-id', personal: true } }),
        'invalid_request',
        400,
      );
      const personal = await alice.addFolder({ folder: { title: String(aliceId), personal: true } });
      const { id } = await alice.addItem({
        item: { label: 'alice secret', password: pw('pw-alice-personal'), folderId: personal.id },
      });
      const folders = await alice.readUserFolders({ login: 'p-alice' });
      expect(folders).toEqual([
        expect.objectContaining({ id: personal.id, personal: true, accessType: 'W' }),
      ]);
      expect((await alice.readUserItems({ login: 'p-alice' })).map((i) => i.password)).toEqual([
        'pw-alice-personal',
      ]);
      expect(await bob.readItems({ ids: [id] })).toEqual([]);
      expect(await bob.readUserFolders({ login: 'p-bob' })).toEqual([]);
      await expectVaultError(bob.deleteFolders({ ids: [personal.id] }), 'not_found', 404);
      await vault.admin.createRole({ name: 'p-sneaky' });
      await expect(vault.admin.grant('p-sneaky', personal.id, 'R')).rejects.toThrow(/personal folder/);
      await expectVaultError(
        alice.updateFolder({
          id: personal.id,
          folder: { title: 'renamed', complexityLevel: 0, renewalPeriod: 0 },
        }),
        'invalid_request',
        400,
      );
      expect((await admin.readItems({ ids: [id] })).length).toBe(1);
    });

    it('refuses a revoked key', async () => {
      const key = await vault.admin.createKey({ label: 'p-temp', login: 'p-bob' });
      secrets.push(key);
      await clientOf(vault, key).readUserFolders({ login: 'p-bob' });
      await vault.admin.revokeKey('p-temp');
      await expectVaultError(clientOf(vault, key).readUserFolders({ login: 'p-bob' }), 'unauthorized', 401);
    });
  });

  describe('attachments', () => {
    let itemId: number;
    beforeAll(async () => {
      const folder = await admin.addFolder({ folder: { title: 'Files' } });
      itemId = (await admin.addItem({ item: { label: 'with files', password: 'x', folderId: folder.id } }))
        .id;
    });

    it('stores, lists and streams back a file with its type, name and a safe disposition', async () => {
      const bytes = new Uint8Array(40_000).map((_, i) => (i * 7) % 256);
      const added = await admin.addFile({
        itemId,
        file: bytes,
        fileName: 'backup codes ✓.bin',
        contentType: 'application/x-custom',
      });
      expect(added.status).toBe('success');
      const files = await admin.listFiles({ itemId });
      expect(files).toEqual([
        expect.objectContaining({
          id: added.id,
          name: 'backup codes ✓.bin',
          type: 'application/x-custom',
          extension: 'bin',
          size: 40_000,
        }),
      ]);
      const download = await admin.downloadFile({ id: added.id! });
      expect(download.bytes).toEqual(bytes);
      expect(download.contentType).toBe('application/x-custom');
      expect(download.fileName).toBe('backup codes ✓.bin');
      const raw = await rawRequest(
        vault.url,
        `/api/index.php/read/files/${added.id}?apikey=${vault.adminKey}`,
      );
      expect(raw.headers['content-disposition']).toMatch(
        /^attachment; filename="backup codes _.bin"; filename\*=UTF-8''/,
      );
      expect(raw.headers['x-content-type-options']).toBe('nosniff');
    });

    it('keeps only a safe name and guesses the type from the extension', async () => {
      const added = await admin.addFile({
        itemId,
        file: new TextEncoder().encode('k'),
        fileName: '../../etc/..\\id_rsa.PEM',
      });
      const files = await admin.listFiles({ itemId });
      expect(files.find((f) => f.id === added.id)).toMatchObject({
        name: 'id_rsa.PEM',
        extension: 'pem',
        type: 'application/x-pem-file',
      });
    });

    it('answers 413 above the size limit and stores nothing', async () => {
      const before = (await admin.listFiles({ itemId })).length;
      await expectVaultError(
        admin.addFile({ itemId, file: new Uint8Array(MAX_FILE + 1), fileName: 'big.bin' }),
        'too_large',
        413,
      );
      expect((await admin.listFiles({ itemId })).length).toBe(before);
    });

    it('refuses an upload from a key without the edit right before reading the file', async () => {
      await vault.admin.createUser({ login: 'f-reader' });
      await vault.admin.createRole({ name: 'f-readers' });
      await vault.admin.assignRole('f-reader', 'f-readers');
      const folderId = (await admin.getItem(itemId)).folderId;
      await vault.admin.grant('f-readers', folderId, 'R');
      const key = await vault.admin.createKey({ label: 'f-reader-key', login: 'f-reader' });
      secrets.push(key);
      const reader = clientOf(vault, key);
      expect((await reader.listFiles({ itemId })).length).toBeGreaterThan(0);
      // Larger than the limit: a 403, not a 413, shows the check ran before the bytes were read.
      await expectVaultError(
        reader.addFile({ itemId, file: new Uint8Array(MAX_FILE + 1_000), fileName: 'x.bin' }),
        'forbidden',
        403,
      );
      await expectVaultError(
        reader.addFile({ itemId: 424_242, file: new Uint8Array(10), fileName: 'x.bin' }),
        'not_found',
        404,
      );
    });

    it('answers malformed and hostile multipart bodies with a 4xx JSON error and stores nothing', async () => {
      const before = (await admin.listFiles({ itemId })).length;
      const b = 'xBOUNDARYx';
      const part = (name: string, value: string, filename?: string) =>
        `--${b}\r\nContent-Disposition: form-data; name="${name}"${filename === undefined ? '' : `; filename="${filename}"`}\r\n\r\n${value}\r\n`;
      const cases: [string, string, string][] = [
        ['no boundary', 'multipart/form-data', part('item_id', String(itemId))],
        [
          'no file part',
          `multipart/form-data; boundary=${b}`,
          `${part('item_id', String(itemId))}--${b}--\r\n`,
        ],
        ['no item_id', `multipart/form-data; boundary=${b}`, `${part('file', 'x', 'a.txt')}--${b}--\r\n`],
        [
          'item_id not a number',
          `multipart/form-data; boundary=${b}`,
          `${part('item_id', "1' OR 1=1")}${part('file', 'x', 'a.txt')}--${b}--\r\n`,
        ],
        [
          'item_id huge',
          `multipart/form-data; boundary=${b}`,
          `${part('item_id', '9'.repeat(40))}${part('file', 'x', 'a.txt')}--${b}--\r\n`,
        ],
        [
          'item_id unknown',
          `multipart/form-data; boundary=${b}`,
          `${part('item_id', '31337')}${part('file', 'x', 'a.txt')}--${b}--\r\n`,
        ],
        [
          'truncated body',
          `multipart/form-data; boundary=${b}`,
          `${part('item_id', String(itemId))}--${b}\r\nContent-Disposition: form-data; name="file"; filename="t.txt"\r\n\r\nabc`,
        ],
        ['garbage', `multipart/form-data; boundary=${b}`, '\u0000\u0001 not multipart at all'],
        ['empty body', `multipart/form-data; boundary=${b}`, ''],
      ];
      for (const [name, contentType, body] of cases) {
        const answer = await rawRequest(vault.url, `/api/index.php/add/file?apikey=${vault.adminKey}`, {
          method: 'POST',
          headers: { 'content-type': contentType },
          body,
        });
        expect(answer.status, name).toBeGreaterThanOrEqual(400);
        expect(answer.status, name).toBeLessThan(500);
        expect(JSON.parse(answer.body), name).toMatchObject({
          err: expect.any(String),
          code: expect.any(String),
        });
      }
      expect((await admin.listFiles({ itemId })).length).toBe(before);
      const hostile = await admin.addFile({
        itemId,
        file: new Uint8Array([1]),
        fileName: '../..\\\u202egnp.exe\t 😀 <b>.png',
      });
      const stored = (await admin.listFiles({ itemId })).find((f) => f.id === hostile.id)!;
      expect(stored.name).not.toMatch(/[\\/\t<>\u202e]/);
      expect(stored.name).toContain('😀');
    });

    it('refuses a body that is not multipart, a missing item and an unknown file', async () => {
      const plain = await rawRequest(vault.url, `/api/index.php/add/file?apikey=${vault.adminKey}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expectJsonError(plain, 400, 'invalid_request');
      await expectVaultError(
        admin.addFile({ itemId: 919_191, file: new Uint8Array(3), fileName: 'a.txt' }),
        'not_found',
        404,
      );
      await expectVaultError(admin.downloadFile({ id: 919_191 }), 'not_found', 404);
      expect(
        await admin.listFiles({
          itemId: (
            await admin.addItem({
              item: {
                label: 'no files',
                password: 'x',
                folderId: (await admin.addFolder({ folder: { title: 'NF' } })).id,
              },
            })
          ).id,
        }),
      ).toEqual([]);
      const get = await rawRequest(vault.url, `/api/index.php/add/file?apikey=${vault.adminKey}`);
      expectJsonError(get, 400, 'invalid_request');
    });
  });

  describe('find/item', () => {
    let parent: number;
    let child: number;
    beforeAll(async () => {
      parent = (await admin.addFolder({ folder: { title: 'Find' } })).id;
      child = (await admin.addFolder({ folder: { title: 'Find child', parentId: parent } })).id;
      for (const label of ['Prod DATABASE', 'staging database', 'Mail 100%', 'under_score', 'Zürich VPN']) {
        await admin.addItem({ item: { label, password: pw(`pw-find-${label.length}`), folderId: parent } });
      }
      await admin.addItem({ item: { label: 'child database', password: 'x', folderId: child } });
    });

    it('matches a case-insensitive substring of the label in the given folders only, not sub-folders', async () => {
      const found = await admin.findItems({ folderIds: [parent], query: 'dataBASE' });
      expect(found.map((i) => i.label).sort()).toEqual(['Prod DATABASE', 'staging database']);
      expect(found.every((i) => i.status === 'OK')).toBe(true);
      const both = await admin.findItems({ folderIds: [parent, child], query: 'database' });
      expect(both).toHaveLength(3);
    });

    it('treats %, _ and unicode literally and answers [] when nothing matches', async () => {
      expect((await admin.findItems({ folderIds: [parent], query: '100%' })).map((i) => i.label)).toEqual([
        'Mail 100%',
      ]);
      expect((await admin.findItems({ folderIds: [parent], query: '_' })).map((i) => i.label)).toEqual([
        'under_score',
      ]);
      expect((await admin.findItems({ folderIds: [parent], query: 'zür' })).map((i) => i.label)).toEqual([
        'Zürich VPN',
      ]);
      expect(await admin.findItems({ folderIds: [parent], query: "' OR 1=1 --" })).toEqual([]);
      expect(await admin.findItems({ folderIds: [parent], query: 'nothing-like-this' })).toEqual([]);
    });

    it('ignores accents, compatibility forms and surrounding spaces as TeamPass does, and refuses a text that folds to nothing', async () => {
      for (const query of ['zurich', 'ZÜRICH vpn', 'ｚｕｒｉｃｈ']) {
        expect(
          (await admin.findItems({ folderIds: [parent], query })).map((i) => i.label),
          query,
        ).toEqual(['Zürich VPN']);
      }
      await expectVaultError(admin.findItems({ folderIds: [parent], query: '   ' }), 'invalid_request', 400);
    });
  });

  describe('concurrent writes', () => {
    it('lets exactly one of ten simultaneous adds of one label succeed', async () => {
      const folder = await admin.addFolder({ folder: { title: 'Race label' } });
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) =>
          admin.addItem({ item: { label: 'Race Label', password: `r${i}`, folderId: folder.id } }),
        ),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) {
        if (r.status === 'rejected') expect((r.reason as { code: string }).code).toBe('duplicate_label');
      }
      expect(await admin.readFolders({ ids: [folder.id] })).toHaveLength(1);
    });

    it('answers a 4xx, never a 5xx, when an item is added to a folder being deleted', async () => {
      for (let i = 0; i < 15; i++) {
        const folder = await admin.addFolder({ folder: { title: `Race folder ${i}` } });
        const results = await Promise.allSettled([
          admin.addItem({ item: { label: `race item ${i}`, password: 'x', folderId: folder.id } }),
          admin.deleteFolders({ ids: [folder.id] }),
        ]);
        for (const r of results) {
          if (r.status === 'rejected') {
            const status = (r.reason as { status?: number }).status ?? 0;
            expect(status, String(r.reason)).toBeGreaterThanOrEqual(400);
            expect(status, String(r.reason)).toBeLessThan(500);
          }
        }
        // Never both: an item in a deleted folder.
        expect(results.every((r) => r.status === 'fulfilled')).toBe(false);
      }
    });
  });

  describe('errors and limits', () => {
    it('answers 401 without echoing a wrong key, and for a missing key', async () => {
      const wrong = 'vlk_this-is-not-a-real-key-and-must-not-be-echoed-12345';
      const answer = await rawRequest(vault.url, `/api/index.php/read/items/1?apikey=${wrong}`);
      const body = expectJsonError(answer, 401, 'unauthorized');
      expect(answer.headers['cache-control']).toBe('no-store');
      expect(answer.body).not.toContain(wrong);
      expect(body.err).not.toContain('this-is-not');
      expectJsonError(await rawRequest(vault.url, '/api/index.php/read/items/1'), 401, 'unauthorized');
      await expectVaultError(clientOf(vault, wrong).readItems({ ids: [1] }), 'unauthorized', 401);
    });

    it('answers on /api/ as well as /api/index.php/, and 404 JSON for unknown operations', async () => {
      const folder = await admin.addFolder({ folder: { title: 'Short prefix' } });
      const short = await rawRequest(vault.url, `/api/read/folder/${folder.id}?apikey=${vault.adminKey}`);
      expect(short.status).toBe(200);
      expectJsonError(
        await rawRequest(vault.url, `/api/index.php/read/nothing/1?apikey=${vault.adminKey}`),
        404,
        'invalid_request',
      );
      expectJsonError(await rawRequest(vault.url, '/elsewhere'), 404, 'invalid_request');
    });

    it('answers 414 for a URL above the limit, even one larger than the header limit', async () => {
      const ids = Array.from({ length: 4_000 }, (_, i) => i + 1).join(';');
      expectJsonError(
        await rawRequest(vault.url, `/api/index.php/read/items/${ids}?apikey=${vault.adminKey}`),
        414,
        'too_large',
      );
      const huge = 'x'.repeat(200_000);
      const answer = await rawRequest(
        vault.url,
        `/api/index.php/read/userpw/${huge}?apikey=${vault.adminKey}`,
      );
      expectJsonError(answer, 414, 'too_large');
      expect((await fetch(`${vault.url}/healthz`)).status).toBe(200);
    });

    it('answers 400 for more than 1000 ids in one call', async () => {
      const ids = Array.from({ length: 1_001 }, (_, i) => i + 1).join(';');
      expectJsonError(
        await rawRequest(vault.url, `/api/index.php/read/items/${ids}?apikey=${vault.adminKey}`),
        400,
        'invalid_request',
      );
    });

    it('serves /healthz and /readyz', async () => {
      expect(await (await fetch(`${vault.url}/healthz`)).json()).toEqual({ status: 'ok' });
      expect(await (await fetch(`${vault.url}/readyz`)).json()).toEqual({ status: 'ready' });
    });
  });
});

function createVaultClientWith(vault: TestVault, folderEncoding: 'values' | 'blob'): VaultClient {
  return createVaultClient({ baseUrl: vault.url, apiKey: vault.adminKey, folderEncoding, retries: 0 });
}
