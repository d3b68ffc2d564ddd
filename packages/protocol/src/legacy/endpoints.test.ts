import { describe, expect, it } from 'vitest';
import { ENDPOINT_NAMES, endpoints, fillPath } from './endpoints.ts';

describe('endpoint table', () => {
  it("has the 14 operations of the spec, TeamPass's new_password and Vaultline's read/otp, each once", () => {
    const operations = ENDPOINT_NAMES.map((name) => endpoints[name].operation);
    // Rows added later are held by the tests that walk the table (test/operations.e2e.test.ts).
    expect(operations).toEqual(
      expect.arrayContaining([
        'add/file',
        'add/folder',
        'add/item',
        'delete/folder',
        'delete/item',
        'find/item',
        'new_password',
        'read/files',
        'read/folder',
        'read/items',
        'read/listfiles',
        'read/otp',
        'read/userfolders',
        'read/userpw',
        'update/folder',
        'update/item',
      ]),
    );
    expect(new Set(operations).size).toBe(operations.length);
  });

  it('reads no secret of the vault in new_password, and never retries a write', () => {
    expect(endpoints.generatePassword).toMatchObject({ secret: false, access: 'read', method: 'GET' });
  });

  it('names one param per placeholder, and every placeholder has a param', () => {
    for (const name of ENDPOINT_NAMES) {
      const row = endpoints[name];
      const placeholders = [...row.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      expect(placeholders.sort(), name).toEqual(Object.keys(row.params).sort());
      expect(row.path.startsWith(`/${row.operation}`), name).toBe(true);
    }
  });

  it('makes add/file the only POST and multipart row, and read/files the only binary one', () => {
    for (const name of ENDPOINT_NAMES) {
      const row = endpoints[name];
      expect(row.method === 'POST', name).toBe(name === 'addFile');
      expect('multipart' in row, name).toBe(name === 'addFile');
      expect(row.response === 'binary', name).toBe(name === 'downloadFile');
      expect('schema' in row, name).toBe(name !== 'downloadFile');
      expect(row.access, name).toBe(/^(add|update|delete)/.test(row.operation) ? 'write' : 'read');
    }
    expect(endpoints.deleteFolders.batch.size).toBe(4);
  });

  it('fills a path template', () => {
    expect(fillPath('/update/item/{id}/{item}', { id: '3', item: 'QQ==;Qg==' })).toBe(
      '/update/item/3/QQ==;Qg==',
    );
    expect(fillPath('/read/items/{ids}', {})).toBe('/read/items/');
    expect(fillPath('/add/file', { ids: '1' })).toBe('/add/file');
    expect(fillPath('/find/item/{folderIds}/{query}', { folderIds: '1;2', query: 'a$&b' })).toBe(
      '/find/item/1;2/a$&b',
    );
    for (let i = 0; i < 100; i++) expect(fillPath(`/x${i}/{a}`, { a: 'v' })).toBe(`/x${i}/v`);
  });
});
