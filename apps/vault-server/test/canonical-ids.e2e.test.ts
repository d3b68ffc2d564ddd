import { encodeValue, encodeValueList, itemToValues } from '@vaultline/protocol/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestVault, type TestVault } from '../src/testing.ts';
import { clientOf, expectJsonError, expectNoSecrets, rawRequest } from './support/helpers.ts';

describe('ids are canonical in the path and inside values', () => {
  let vault: TestVault;
  let folderId: number;
  let itemId: number;
  const logLines: string[] = [];

  beforeAll(async () => {
    vault = await startTestVault({ logLines });
    const client = clientOf(vault);
    folderId = (await client.addFolder({ folder: { title: 'Canonical' } })).id;
    itemId = (await client.addItem({ item: { label: 'canonical item', password: 'pw-canonical', folderId } }))
      .id;
  });

  afterAll(async () => {
    await vault?.close();
    expectNoSecrets(logLines, [vault.adminKey, 'pw-canonical']);
  });

  const itemWith = (folderValue: string, label: string) => {
    const values = itemToValues({ label, password: 'pw-canonical', folderId });
    values[3] = folderValue;
    return encodeValueList(values);
  };

  it.each(['1 ', ' 1', '+1', '1.0', '01x', '0x1', '1e0', ''])(
    'refuses the folder value %j in add/item and update/item, and writes nothing',
    async (spelling) => {
      const value = spelling.replace('1', String(folderId));
      const add = await rawRequest(
        vault.url,
        `/api/index.php/add/item/${itemWith(value, `added ${JSON.stringify(spelling)}`)}?apikey=${vault.adminKey}`,
      );
      expect(expectJsonError(add, 400, 'invalid_request').err).toMatch(/folder_id/);
      const update = await rawRequest(
        vault.url,
        `/api/index.php/update/item/${itemId}/${itemWith(value, 'renamed')}?apikey=${vault.adminKey}`,
      );
      expect(expectJsonError(update, 400, 'invalid_request').err).toMatch(/folder_id/);
      const [item] = await clientOf(vault).readItems({ ids: [itemId] });
      expect(item?.label).toBe('canonical item');
      const rows = await vault.server.vault.db.query('SELECT id FROM items');
      expect(rows).toHaveLength(1);
    },
  );

  it('accepts the canonical folder value', async () => {
    const answer = await rawRequest(
      vault.url,
      `/api/index.php/update/item/${itemId}/${itemWith(String(folderId), 'canonical item')}?apikey=${vault.adminKey}`,
    );
    expect(answer.status).toBe(200);
  });

  it.each(['1 ', '%201', '+1', '1.0', '01.0'])('refuses the path id %j', async (spelling) => {
    const answer = await rawRequest(
      vault.url,
      `/api/index.php/read/items/${spelling.replace('1', String(itemId)).replace(' ', '%20')}?apikey=${vault.adminKey}`,
    );
    expectJsonError(answer, 400, 'invalid_request');
  });

  it.each(['1 ', ' 1', '+1', '1.0'])(
    'refuses the parent_id %j inside add/folder values',
    async (spelling) => {
      const values = ['Child', '0', spelling.replace('1', String(folderId)), '0', '0'];
      const before = await vault.server.vault.db.query('SELECT id FROM folders');
      for (const segment of [encodeValue(values.join(';')), encodeValueList(values)]) {
        const answer = await rawRequest(
          vault.url,
          `/api/index.php/add/folder/${segment}?apikey=${vault.adminKey}`,
        );
        expect(expectJsonError(answer, 400, 'invalid_request').err).toMatch(/parent_id/);
      }
      expect(await vault.server.vault.db.query('SELECT id FROM folders')).toEqual(before);
    },
  );
});
