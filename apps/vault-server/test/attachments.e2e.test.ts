import { beforeAll, describe, expect, it } from 'vitest';
import { clientOf, expectJsonError, expectVaultError, rawRequest, STORES } from './support/helpers.ts';
import { vaultForSuite } from './support/vault-for-suite.ts';

const MAX_FILE = 64 * 1024;

describe.each(STORES)('vault server attachments on %s', (store) => {
  const suite = vaultForSuite(store, { maxFileBytes: MAX_FILE });
  const { secrets } = suite;

  describe('attachments', () => {
    let itemId: number;
    beforeAll(async () => {
      const folder = await suite.admin.addFolder({ folder: { title: 'Files' } });
      itemId = (
        await suite.admin.addItem({ item: { label: 'with files', password: 'x', folderId: folder.id } })
      ).id;
    });

    it('stores, lists and streams back a file with its type, name and a safe disposition', async () => {
      const bytes = new Uint8Array(40_000).map((_, i) => (i * 7) % 256);
      const added = await suite.admin.addFile({
        itemId,
        file: bytes,
        fileName: 'backup codes ✓.bin',
        contentType: 'application/x-custom',
      });
      expect(added.status).toBe('success');
      const files = await suite.admin.listFiles({ itemId });
      expect(files).toEqual([
        expect.objectContaining({
          id: added.id,
          name: 'backup codes ✓.bin',
          type: 'application/x-custom',
          extension: 'bin',
          size: 40_000,
        }),
      ]);
      const download = await suite.admin.downloadFile({ id: added.id! });
      expect(download.bytes).toEqual(bytes);
      expect(download.contentType).toBe('application/x-custom');
      expect(download.fileName).toBe('backup codes ✓.bin');
      const raw = await rawRequest(
        suite.vault.url,
        `/api/index.php/read/files/${added.id}?apikey=${suite.vault.adminKey}`,
      );
      expect(raw.headers['content-disposition']).toMatch(
        /^attachment; filename="backup codes _.bin"; filename\*=UTF-8''/,
      );
      expect(raw.headers['x-content-type-options']).toBe('nosniff');
    });

    it('keeps only a safe name and guesses the type from the extension', async () => {
      const added = await suite.admin.addFile({
        itemId,
        file: new TextEncoder().encode('k'),
        fileName: '../../etc/..\\id_rsa.PEM',
      });
      const files = await suite.admin.listFiles({ itemId });
      expect(files.find((f) => f.id === added.id)).toMatchObject({
        name: 'id_rsa.PEM',
        extension: 'pem',
        type: 'application/x-pem-file',
      });
    });

    it('answers 413 above the size limit and stores nothing', async () => {
      const before = (await suite.admin.listFiles({ itemId })).length;
      await expectVaultError(
        suite.admin.addFile({ itemId, file: new Uint8Array(MAX_FILE + 1), fileName: 'big.bin' }),
        'too_large',
        413,
      );
      expect((await suite.admin.listFiles({ itemId })).length).toBe(before);
    });

    it('refuses an upload from a key without the edit right before reading the file', async () => {
      await suite.vault.admin.createUser({ login: 'f-reader' });
      await suite.vault.admin.createRole({ name: 'f-readers' });
      await suite.vault.admin.assignRole('f-reader', 'f-readers');
      const folderId = (await suite.admin.getItem(itemId)).folderId;
      await suite.vault.admin.grant('f-readers', folderId, 'R');
      const key = await suite.vault.admin.createKey({ label: 'f-reader-key', login: 'f-reader' });
      secrets.push(key);
      const reader = clientOf(suite.vault, key);
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
      const before = (await suite.admin.listFiles({ itemId })).length;
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
        const answer = await rawRequest(
          suite.vault.url,
          `/api/index.php/add/file?apikey=${suite.vault.adminKey}`,
          {
            method: 'POST',
            headers: { 'content-type': contentType },
            body,
          },
        );
        expect(answer.status, name).toBeGreaterThanOrEqual(400);
        expect(answer.status, name).toBeLessThan(500);
        expect(JSON.parse(answer.body), name).toMatchObject({
          err: expect.any(String),
          code: expect.any(String),
        });
      }
      expect((await suite.admin.listFiles({ itemId })).length).toBe(before);
      const hostile = await suite.admin.addFile({
        itemId,
        file: new Uint8Array([1]),
        fileName: '../..\\\u202egnp.exe\t 😀 <b>.png',
      });
      const stored = (await suite.admin.listFiles({ itemId })).find((f) => f.id === hostile.id)!;
      expect(stored.name).not.toMatch(/[\\/\t<>\u202e]/);
      expect(stored.name).toContain('😀');
    });

    it('refuses a body that is not multipart, a missing item and an unknown file', async () => {
      const plain = await rawRequest(
        suite.vault.url,
        `/api/index.php/add/file?apikey=${suite.vault.adminKey}`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        },
      );
      expectJsonError(plain, 400, 'invalid_request');
      await expectVaultError(
        suite.admin.addFile({ itemId: 919_191, file: new Uint8Array(3), fileName: 'a.txt' }),
        'not_found',
        404,
      );
      await expectVaultError(suite.admin.downloadFile({ id: 919_191 }), 'not_found', 404);
      expect(
        await suite.admin.listFiles({
          itemId: (
            await suite.admin.addItem({
              item: {
                label: 'no files',
                password: 'x',
                folderId: (await suite.admin.addFolder({ folder: { title: 'NF' } })).id,
              },
            })
          ).id,
        }),
      ).toEqual([]);
      const get = await rawRequest(suite.vault.url, `/api/index.php/add/file?apikey=${suite.vault.adminKey}`);
      expectJsonError(get, 400, 'invalid_request');
    });
  });
});
