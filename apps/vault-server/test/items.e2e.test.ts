import type { VaultClient } from '@vaultline/protocol';
import { encodeValueList } from '@vaultline/protocol/wire';
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

describe.each(STORES)('vault server items, and concurrent writes on %s', (store) => {
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
    vault = await startVaultOn(store, cluster, { logLines });
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
});
