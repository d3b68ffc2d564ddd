import { encodeValueList } from '@vaultline/protocol/wire';
import { describe, expect, it } from 'vitest';
import { expectJsonError, expectVaultError, rawRequest, STORES } from './support/helpers.ts';
import { vaultForSuite } from './support/vault-for-suite.ts';

describe.each(STORES)('vault server items, and concurrent writes on %s', (store) => {
  const suite = vaultForSuite(store);
  const { pw } = suite;

  describe('items', () => {
    it('stores every value, unicode and reserved characters included, and reads it back', async () => {
      const folder = await suite.admin.addFolder({ folder: { title: 'Ünïcode 🗝️ folder' } });
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
      const { id, status } = await suite.admin.addItem({ item });
      expect(status).toBe('item added');
      const read = await suite.admin.getItem(id);
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
      const raw = await rawRequest(
        suite.vault.url,
        `/api/index.php/read/items/${id}?apikey=${suite.vault.adminKey}`,
      );
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
      const folder = await suite.admin.addFolder({ folder: { title: 'Order' } });
      const a = await suite.admin.addItem({
        item: { label: 'order a', password: pw('pw-order-a'), folderId: folder.id },
      });
      const b = await suite.admin.addItem({
        item: { label: 'order b', password: pw('pw-order-b'), folderId: folder.id },
      });
      const items = await suite.admin.readItems({ ids: [b.id, a.id, b.id, 999_999] });
      expect(items.map((i) => i.id)).toEqual([a.id, b.id]);
      expect(await suite.admin.readItems({ ids: [999_998] })).toEqual([]);
      const raw = await rawRequest(
        suite.vault.url,
        `/api/index.php/read/items/999998?apikey=${suite.vault.adminKey}`,
      );
      expect(raw.status).toBe(200);
      expect(raw.body).toBe('[]');
    });

    it('replaces all nine values on update and answers 404 for an unknown id', async () => {
      const folder = await suite.admin.addFolder({ folder: { title: 'Updates' } });
      const other = await suite.admin.addFolder({ folder: { title: 'Updates 2' } });
      const { id } = await suite.admin.addItem({
        item: { label: 'upd', password: pw('pw-upd-1'), folderId: folder.id, login: 'x', url: 'u' },
      });
      const result = await suite.admin.updateItem({
        id,
        item: { label: 'upd 2', password: pw('pw-upd-2'), folderId: other.id },
      });
      expect(result.status).toBe('item updated');
      expect(await suite.admin.getItem(id)).toMatchObject({
        label: 'upd 2',
        password: 'pw-upd-2',
        login: '',
        url: '',
        folderId: other.id,
      });
      await suite.admin.updateItemFields(id, { description: 'kept' });
      expect(await suite.admin.getItem(id)).toMatchObject({
        label: 'upd 2',
        password: 'pw-upd-2',
        description: 'kept',
      });
      await expectVaultError(
        suite.admin.updateItem({ id: 987_654, item: { label: 'n', password: 'p', folderId: folder.id } }),
        'not_found',
        404,
      );
      await expectVaultError(
        suite.admin.updateItem({ id, item: { label: 'upd 3', password: 'p', folderId: 987_654 } }),
        'not_found',
        404,
      );
    });

    it('refuses a label similar to an existing one (case, accents, spaces) anywhere in the vault', async () => {
      const f1 = await suite.admin.addFolder({ folder: { title: 'Dup 1' } });
      const f2 = await suite.admin.addFolder({ folder: { title: 'Dup 2' } });
      const { id } = await suite.admin.addItem({
        item: { label: 'Café Login', password: pw('pw-dup'), folderId: f1.id },
      });
      for (const label of ['Café Login', 'café login', 'CAFE LOGIN', ' Cafe Login  ']) {
        const error = await expectVaultError(
          suite.admin.addItem({ item: { label, password: 'x', folderId: f2.id } }),
          'duplicate_label',
          409,
        );
        expect(error.serverMessage).toMatch(/Label already exists/);
      }
      const second = await suite.admin.addItem({
        item: { label: 'Cafe Logins', password: 'x', folderId: f2.id },
      });
      await expectVaultError(
        suite.admin.updateItem({
          id: second.id,
          item: { label: 'CAFÉ LOGIN', password: 'x', folderId: f2.id },
        }),
        'duplicate_label',
        409,
      );
      await suite.admin.deleteItems({ ids: [id] });
      expect(
        (await suite.admin.addItem({ item: { label: 'café login', password: 'x', folderId: f2.id } })).id,
      ).toBeGreaterThan(0);
    });

    it('rejects missing or invalid values with 400 and stores nothing', async () => {
      const folder = await suite.admin.addFolder({ folder: { title: 'Invalid' } });
      await expectVaultError(
        suite.admin.addItem({ item: { label: '  ', password: 'x', folderId: folder.id } }),
        'invalid_request',
        400,
      );
      await expectVaultError(
        suite.admin.addItem({ item: { label: 'no pw', password: '', folderId: folder.id } }),
        'invalid_request',
        400,
      );
      await expectVaultError(
        suite.admin.addItem({ item: { label: 'x'.repeat(501), password: 'x', folderId: folder.id } }),
        'invalid_request',
        400,
      );
      await expectVaultError(
        suite.admin.addItem({ item: { label: 'nul\u0000', password: 'x', folderId: folder.id } }),
        'invalid_request',
        400,
      );
      await expectVaultError(
        suite.admin.addItem({ item: { label: 'no folder', password: 'x', folderId: 424_242 } }),
        'not_found',
        404,
      );
      const values = ['lbl', 'pw', '', 'abc', '', '', '', '', '0'];
      const bad = await rawRequest(
        suite.vault.url,
        `/api/index.php/add/item/${encodeValueList(values)}?apikey=${suite.vault.adminKey}`,
      );
      expectJsonError(bad, 400, 'invalid_request');
      expect(await suite.admin.readFolders({ ids: [folder.id] })).toEqual([]);
    });

    it('deletes items with the text OK, and deletes nothing when one id is unknown', async () => {
      const folder = await suite.admin.addFolder({ folder: { title: 'Deletes' } });
      const a = await suite.admin.addItem({ item: { label: 'del a', password: 'x', folderId: folder.id } });
      const b = await suite.admin.addItem({ item: { label: 'del b', password: 'x', folderId: folder.id } });
      const raw = await rawRequest(
        suite.vault.url,
        `/api/index.php/delete/item/${a.id}?apikey=${suite.vault.adminKey}`,
      );
      expect(raw.status).toBe(200);
      expect(raw.body).toBe('OK');
      await expectVaultError(suite.admin.deleteItems({ ids: [b.id, 777_777] }), 'not_found', 404);
      expect((await suite.admin.readItems({ ids: [b.id] })).length).toBe(1);
      expect(await suite.admin.deleteItems({ ids: [b.id] })).toEqual({ status: 'OK' });
      expect(await suite.admin.readItems({ ids: [a.id, b.id] })).toEqual([]);
    });
  });

  describe('concurrent writes', () => {
    it('lets exactly one of ten simultaneous adds of one label succeed', async () => {
      const folder = await suite.admin.addFolder({ folder: { title: 'Race label' } });
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) =>
          suite.admin.addItem({ item: { label: 'Race Label', password: `r${i}`, folderId: folder.id } }),
        ),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) {
        if (r.status === 'rejected') expect((r.reason as { code: string }).code).toBe('duplicate_label');
      }
      expect(await suite.admin.readFolders({ ids: [folder.id] })).toHaveLength(1);
    });

    it('answers a 4xx, never a 5xx, when an item is added to a folder being deleted', async () => {
      for (let i = 0; i < 15; i++) {
        const folder = await suite.admin.addFolder({ folder: { title: `Race folder ${i}` } });
        const results = await Promise.allSettled([
          suite.admin.addItem({ item: { label: `race item ${i}`, password: 'x', folderId: folder.id } }),
          suite.admin.deleteFolders({ ids: [folder.id] }),
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
