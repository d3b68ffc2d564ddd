import { createVaultClient, type VaultClient } from '@vaultline/protocol';
import { encodeValue } from '@vaultline/protocol/wire';
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

describe.each(STORES)('vault server folders on %s', (store) => {
  let cluster: PostgresCluster | undefined;
  let vault: TestVault;
  let admin: VaultClient;
  const logLines: string[] = [];
  const secrets: string[] = [];

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
});

function createVaultClientWith(vault: TestVault, folderEncoding: 'values' | 'blob'): VaultClient {
  return createVaultClient({ baseUrl: vault.url, apiKey: vault.adminKey, folderEncoding, retries: 0 });
}
