import type { VaultClient } from '@vaultline/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestVault } from '../src/testing.ts';
import {
  clientOf,
  expectJsonError,
  expectNoSecrets,
  rawRequest,
  STORES,
  startVaultOn,
} from './support/helpers.ts';
import { type PostgresCluster, startPostgresCluster } from './support/postgres-cluster.ts';

const BOUNDARY = 'xATTACHx';

/** One part of a multipart/form-data body. */
function part(name: string, value: string, filename?: string): string {
  const disposition = `form-data; name="${name}"${filename === undefined ? '' : `; filename="${filename}"`}`;
  return `--${BOUNDARY}\r\nContent-Disposition: ${disposition}\r\n\r\n${value}\r\n`;
}

describe.each(STORES)('attachments on %s', (store) => {
  let cluster: PostgresCluster | undefined;
  let vault: TestVault;
  let admin: VaultClient;
  let itemId: number;
  let otherItemId: number;
  const logLines: string[] = [];

  beforeAll(async () => {
    if (store === 'postgres') cluster = await startPostgresCluster();
    vault = await startVaultOn(store, cluster, { logLines });
    admin = clientOf(vault);
    const folder = await admin.addFolder({ folder: { title: 'Attachments' } });
    itemId = (await admin.addItem({ item: { label: 'a1', password: 'x', folderId: folder.id } })).id;
    otherItemId = (await admin.addItem({ item: { label: 'a2', password: 'x', folderId: folder.id } })).id;
  });

  afterAll(async () => {
    await vault?.close();
    await cluster?.stop();
    expectNoSecrets(logLines, [vault.adminKey]);
  });

  const post = (body: string) =>
    rawRequest(vault.url, '/api/index.php/add/file', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${vault.adminKey}`,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
      },
      body,
    });

  describe('add/file form fields', () => {
    it('refuses a repeated item_id with 400 and stores nothing', async () => {
      const cases = [
        `${part('item_id', String(itemId))}${part('item_id', String(otherItemId))}${part('file', 'x', 'a.txt')}`,
        `${part('item_id', String(otherItemId))}${part('file', 'x', 'a.txt')}${part('item_id', String(itemId))}`,
        `${part('item_id', String(itemId))}${part('item_id', String(itemId))}${part('file', 'x', 'a.txt')}`,
      ];
      for (const body of cases) {
        const answer = await post(`${body}--${BOUNDARY}--\r\n`);
        const error = expectJsonError(answer, 400, 'invalid_request');
        expect(error.err).toMatch(/item_id/);
        expect(error.err).toMatch(/more than once/);
      }
      expect(await admin.listFiles({ itemId })).toEqual([]);
      expect(await admin.listFiles({ itemId: otherItemId })).toEqual([]);
    });

    it('refuses a repeated file part with 400 and stores nothing', async () => {
      const answer = await post(
        `${part('item_id', String(itemId))}${part('file', 'one', 'a.txt')}${part('file', 'two', 'b.txt')}--${BOUNDARY}--\r\n`,
      );
      const error = expectJsonError(answer, 400, 'invalid_request');
      expect(error.err).toMatch(/"file"|file/);
      expect(error.err).toMatch(/more than once/);
      expect(await admin.listFiles({ itemId })).toEqual([]);
    });

    it('refuses a form with more parts than the limit, where a repeated one could hide', async () => {
      const junk = ['a', 'b', 'c', 'd'].map((name) => part(name, name)).join('');
      const answer = await post(
        `${part('item_id', String(itemId))}${junk}${part('item_id', String(otherItemId))}${part('file', 'x', 'a.txt')}--${BOUNDARY}--\r\n`,
      );
      expect(expectJsonError(answer, 400, 'invalid_request').err).toMatch(/more parts/);
      expect(await admin.listFiles({ itemId })).toEqual([]);
      expect(await admin.listFiles({ itemId: otherItemId })).toEqual([]);
    });

    it('still ignores a field the operation does not read', async () => {
      const folderId = (await admin.getItem(itemId)).folderId;
      const fresh = (await admin.addItem({ item: { label: 'a3', password: 'x', folderId } })).id;
      const answer = await post(
        `${part('item_id', String(fresh))}${part('note', 'a')}${part('note', 'b')}${part('file', 'kept', 'k.txt')}--${BOUNDARY}--\r\n`,
      );
      expect(answer.status).toBe(200);
      const files = await admin.listFiles({ itemId: fresh });
      expect(files.map((file) => file.name)).toEqual(['k.txt']);
    });
  });
});
