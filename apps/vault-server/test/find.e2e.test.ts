import { beforeAll, describe, expect, it } from 'vitest';
import { expectVaultError, STORES } from './support/helpers.ts';
import { vaultForSuite } from './support/vault-for-suite.ts';

describe.each(STORES)('vault server find/item on %s', (store) => {
  const suite = vaultForSuite(store);
  const { pw } = suite;

  describe('find/item', () => {
    let parent: number;
    let child: number;
    beforeAll(async () => {
      parent = (await suite.admin.addFolder({ folder: { title: 'Find' } })).id;
      child = (await suite.admin.addFolder({ folder: { title: 'Find child', parentId: parent } })).id;
      for (const label of ['Prod DATABASE', 'staging database', 'Mail 100%', 'under_score', 'Zürich VPN']) {
        await suite.admin.addItem({
          item: { label, password: pw(`pw-find-${label.length}`), folderId: parent },
        });
      }
      await suite.admin.addItem({ item: { label: 'child database', password: 'x', folderId: child } });
    });

    it('matches a case-insensitive substring of the label in the given folders only, not sub-folders', async () => {
      const found = await suite.admin.findItems({ folderIds: [parent], query: 'dataBASE' });
      expect(found.map((i) => i.label).sort()).toEqual(['Prod DATABASE', 'staging database']);
      expect(found.every((i) => i.status === 'OK')).toBe(true);
      const both = await suite.admin.findItems({ folderIds: [parent, child], query: 'database' });
      expect(both).toHaveLength(3);
    });

    it('treats %, _ and unicode literally and answers [] when nothing matches', async () => {
      expect(
        (await suite.admin.findItems({ folderIds: [parent], query: '100%' })).map((i) => i.label),
      ).toEqual(['Mail 100%']);
      expect((await suite.admin.findItems({ folderIds: [parent], query: '_' })).map((i) => i.label)).toEqual([
        'under_score',
      ]);
      expect(
        (await suite.admin.findItems({ folderIds: [parent], query: 'zür' })).map((i) => i.label),
      ).toEqual(['Zürich VPN']);
      expect(await suite.admin.findItems({ folderIds: [parent], query: "' OR 1=1 --" })).toEqual([]);
      expect(await suite.admin.findItems({ folderIds: [parent], query: 'nothing-like-this' })).toEqual([]);
    });

    it('ignores accents, compatibility forms and surrounding spaces as TeamPass does, and refuses a text that folds to nothing', async () => {
      for (const query of ['zurich', 'ZÜRICH vpn', 'ｚｕｒｉｃｈ']) {
        expect(
          (await suite.admin.findItems({ folderIds: [parent], query })).map((i) => i.label),
          query,
        ).toEqual(['Zürich VPN']);
      }
      await expectVaultError(
        suite.admin.findItems({ folderIds: [parent], query: '   ' }),
        'invalid_request',
        400,
      );
    });
  });
});
