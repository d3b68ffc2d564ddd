import { createWireClient, encodeValue, type WireClient } from '@vaultline/protocol/wire';
import { describe, expect, it } from 'vitest';
import type { TestVault } from '../src/testing.ts';
import { expectJsonError, expectVaultError, rawRequest, STORES } from './support/helpers.ts';
import { vaultForSuite } from './support/vault-for-suite.ts';

describe.each(STORES)('vault server folders on %s', (store) => {
  const suite = vaultForSuite(store);

  describe('folders', () => {
    it('accepts the one-blob and the per-value encodings and computes levels and paths', async () => {
      const top = await suite.admin.addFolder({
        folder: { title: 'Top', complexityLevel: 50, renewalPeriod: 6 },
      });
      const values = wireClientWith(suite.vault, 'values');
      const mid = await values.addFolder({ folder: { title: 'Mid', parentId: top.id, complexityLevel: 60 } });
      const leaf = await suite.admin.addFolder({ folder: { title: 'Leaf', parentId: mid.id } });
      const { id } = await suite.admin.addItem({
        item: { label: 'deep item', password: 'x', folderId: leaf.id },
      });
      expect((await suite.admin.getItem(id)).path).toEqual(['Top', 'Mid', 'Leaf']);
      const raw = await rawRequest(
        suite.vault.url,
        `/api/index.php/add/folder/${encodeValue('Raw blob;0;0;0;0')}?apikey=${suite.vault.adminKey}`,
      );
      expect(JSON.parse(raw.body)).toMatchObject({ status: 'folder created' });
      await suite.vault.admin.createUser({ login: 'leveluser' });
      await suite.vault.admin.createRole({ name: 'levels' });
      await suite.vault.admin.assignRole('leveluser', 'levels');
      for (const folder of [top, mid, leaf]) await suite.vault.admin.grant('levels', folder.id, 'R');
      const folders = await suite.admin.readUserFolders({ login: 'leveluser' });
      expect(folders.map((f) => [f.title, f.level, f.parentId ?? 0])).toEqual([
        ['Top', 1, 0],
        ['Mid', 2, top.id],
        ['Leaf', 3, mid.id],
      ]);
      // Each folder's complexity level, so a client judges a password by the folder's own rule.
      expect(folders.map((f) => [f.title, f.complexityLevel, f.raw.complexity_level])).toEqual([
        ['Top', 50, '50'],
        ['Mid', 60, '60'],
        ['Leaf', 0, '0'],
      ]);
    });

    it('validates complexity, parent and title, and updates folders', async () => {
      await expectVaultError(
        suite.admin.addFolder({ folder: { title: 'Bad', complexityLevel: 33 as 0 } }),
        'invalid_request',
        400,
      );
      await expectVaultError(
        suite.admin.addFolder({ folder: { title: 'Orphan', parentId: 555_555 } }),
        'not_found',
        404,
      );
      await expectVaultError(suite.admin.addFolder({ folder: { title: '   ' } }), 'invalid_request', 400);
      const folder = await suite.admin.addFolder({ folder: { title: 'Renamed?' } });
      const result = await suite.admin.updateFolder({
        id: folder.id,
        folder: { title: 'Renamed', complexityLevel: 90, renewalPeriod: 3 },
      });
      expect(result.status).toBe('folder updated');
      await expectVaultError(
        suite.admin.updateFolder({
          id: 555_555,
          folder: { title: 'x', complexityLevel: 0, renewalPeriod: 0 },
        }),
        'not_found',
        404,
      );
      const { id } = await suite.admin.addItem({
        item: { label: 'in renamed', password: 'x', folderId: folder.id },
      });
      expect((await suite.admin.getItem(id)).path).toEqual(['Renamed']);
    });

    it('refuses to delete a folder that holds items or sub-folders, and deletes a parent with its child', async () => {
      const parent = await suite.admin.addFolder({ folder: { title: 'Del parent' } });
      const child = await suite.admin.addFolder({ folder: { title: 'Del child', parentId: parent.id } });
      const holder = await suite.admin.addFolder({ folder: { title: 'Del holder' } });
      await suite.admin.addItem({ item: { label: 'held', password: 'x', folderId: holder.id } });
      const busy = await rawRequest(
        suite.vault.url,
        `/api/index.php/delete/folder/${holder.id}?apikey=${suite.vault.adminKey}`,
      );
      expectJsonError(busy, 409, 'invalid_request');
      const notEmpty = await rawRequest(
        suite.vault.url,
        `/api/index.php/delete/folder/${parent.id}?apikey=${suite.vault.adminKey}`,
      );
      expectJsonError(notEmpty, 409, 'invalid_request');
      expect(await suite.admin.deleteFolders({ ids: [parent.id, child.id] })).toEqual({ status: 'OK' });
      await expectVaultError(suite.admin.deleteFolders({ ids: [parent.id] }), 'not_found', 404);
    });
  });
});

function wireClientWith(vault: TestVault, folderEncoding: 'values' | 'blob'): WireClient {
  return createWireClient({
    baseUrl: vault.url,
    auth: vault.adminKey,
    retry: { retries: 0 },
    legacy: { folderEncoding },
  });
}
