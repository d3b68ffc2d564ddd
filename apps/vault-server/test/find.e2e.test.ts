import type { VaultClient } from '@vaultline/protocol';
import { type PostgresCluster, startPostgresCluster } from '@vaultline/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestVault } from '../src/testing.ts';
import { clientOf, expectNoSecrets, expectVaultError, STORES, startVaultOn } from './support/helpers.ts';

describe.each(STORES)('vault server find/item on %s', (store) => {
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
});
