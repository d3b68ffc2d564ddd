import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  AddFileResultSchema,
  AddFolderResultSchema,
  AddItemResultSchema,
  ErrorBodySchema,
  FileListSchema,
  FolderListSchema,
  FoundItemListSchema,
  ItemListSchema,
  ItemRecordSchema,
  OkResultSchema,
  RawItemRecordSchema,
  StatusResultSchema,
  splitPath,
} from './schemas.ts';

const record = {
  id: '12',
  label: 'db',
  description: 'prod',
  login: 'admin',
  email: 'ops@example.com',
  url: 'https://db.example.com',
  pw: 's3cret',
  folder_id: '4',
  path: 'Team > Ops > DB',
};

describe('ItemListSchema', () => {
  it('turns an array of records into items and keeps the raw record', () => {
    const [item] = v.parse(ItemListSchema, [record]);
    expect(item).toEqual({
      id: 12,
      label: 'db',
      description: 'prod',
      login: 'admin',
      email: 'ops@example.com',
      url: 'https://db.example.com',
      password: 's3cret',
      folderId: 4,
      path: ['Team', 'Ops', 'DB'],
      raw: expect.any(Object),
    });
    // A canonical record is kept exactly as the server sent it.
    expect(item?.raw).toEqual(record);
  });

  it('reads an object keyed by id, in the order received', () => {
    const items = v.parse(ItemListSchema, {
      '12': record,
      '3': { ...record, id: '3', label: 'b' },
    });
    // JS orders integer keys ascending: the order an object keyed by id comes out in.
    expect(items.map((item) => item.id)).toEqual([3, 12]);
  });

  it('reads [] (PHP’s empty object) as an empty list, and {} too', () => {
    expect(v.parse(ItemListSchema, [])).toEqual([]);
    expect(v.parse(ItemListSchema, {})).toEqual([]);
  });

  it('accepts numbers and null where strings are due', () => {
    const [item] = v.parse(ItemListSchema, [
      { ...record, id: 12, folder_id: 4, login: null, description: 7, pw: 1234 },
    ]);
    expect(item).toMatchObject({ id: 12, folderId: 4, login: '', description: '7', password: '1234' });
  });

  it('accepts missing optional fields and an empty pw', () => {
    const [item] = v.parse(ItemListSchema, [{ id: '5', label: 'only', pw: '' }]);
    expect(item).toMatchObject({
      id: 5,
      label: 'only',
      description: '',
      login: '',
      email: '',
      url: '',
      password: '',
      folderId: 0,
      path: [],
    });
  });

  it('keeps unknown fields in raw', () => {
    const [item] = v.parse(ItemListSchema, [{ ...record, extra: 'x', perso: '1' }]);
    expect(item?.raw).toMatchObject({ extra: 'x', perso: '1' });
  });

  it.each([
    ['1.0', 1],
    ['+3', 3],
    [' 7 ', 7],
    [9, 9],
  ])('reads the id %j as %d', (id, expected) => {
    expect(v.parse(ItemRecordSchema, { ...record, id }).id).toBe(expected);
  });

  it.each([
    ['a missing id', { label: 'x' }],
    ['a non-numeric id', { id: 'abc', label: 'x' }],
    ['a missing label', { id: '1' }],
    ['an object as label', { id: '1', label: { a: 1 } }],
    ['a boolean pw', { id: '1', label: 'x', pw: true }],
    ['a negative number id', { id: -1, label: 'x' }],
    ['a fractional number id', { id: 1.5, label: 'x' }],
    ['an unsafe number id', { id: 2 ** 60, label: 'x' }],
    ['a fractional id text', { id: '1.5', label: 'x' }],
  ])('refuses %s', (_, bad) => {
    expect(v.safeParse(ItemListSchema, [bad]).success).toBe(false);
  });

  it('refuses a string, a number and null as the whole body', () => {
    for (const body of ['OK', 3, null]) expect(v.safeParse(ItemListSchema, body).success).toBe(false);
  });

  it('exposes the raw record schema', () => {
    expect(v.parse(RawItemRecordSchema, record)).toMatchObject({ id: 12, folder_id: 4, label: 'db' });
  });
});

describe('splitPath', () => {
  it.each([
    ['', []],
    ['Top', ['Top']],
    ['Team > Ops > DB', ['Team', 'Ops', 'DB']],
    ['A>B > C', ['A>B', 'C']],
    ['Ünïcödé 🔑 > x', ['Ünïcödé 🔑', 'x']],
  ])('splits %j', (path, parts) => {
    expect(splitPath(path)).toEqual(parts);
  });
});

describe('FoundItemListSchema', () => {
  it('keeps the status of find records', () => {
    const [found] = v.parse(FoundItemListSchema, [{ ...record, status: 'OK' }]);
    expect(found).toMatchObject({ id: 12, status: 'OK', password: 's3cret' });
    expect(found?.raw.status).toBe('OK');
  });

  it('defaults a missing status to empty', () => {
    expect(v.parse(FoundItemListSchema, [record])[0]?.status).toBe('');
  });
});

describe('FolderListSchema', () => {
  const folders = {
    '3': { id: '3', title: 'Ops', level: '1', access_type: 'W' },
    '4': { id: '4', title: 'DB', level: '2', access_type: 'ND', parent_id: '3' },
    '5': { id: '5', title: 'Read', level: '1', access_type: 'NE' },
    '6': { id: '6', title: 'X', level: '1', access_type: 'NDNE' },
    '7': { id: '7', title: 'R', level: 1, access_type: 'R', parent_id: null, personal: '1' },
    '8': { id: '8', title: 'odd', level: '', access_type: 'SUPER' },
    '9': { id: '9', title: 'none', access_type: '' },
    '10': { id: 10, title: 12345 },
  };

  it('maps access_type to a union, unknown and missing to none', () => {
    const parsed = v.parse(FolderListSchema, folders);
    expect(parsed.map((folder) => [folder.id, folder.accessType])).toEqual([
      [3, 'W'],
      [4, 'ND'],
      [5, 'NE'],
      [6, 'NDNE'],
      [7, 'R'],
      [8, 'none'],
      [9, 'none'],
      [10, 'none'],
    ]);
  });

  it('reads level as a number, parent_id as optional, personal as a flag', () => {
    const byId = new Map(v.parse(FolderListSchema, folders).map((folder) => [folder.id, folder]));
    expect(byId.get(4)).toMatchObject({ level: 2, parentId: 3, personal: false, title: 'DB' });
    expect(byId.get(3)?.parentId).toBeUndefined();
    expect(byId.get(7)).toMatchObject({ level: 1, parentId: undefined, personal: true });
    expect(byId.get(8)?.level).toBe(0);
    expect(byId.get(9)?.level).toBe(0);
    expect(byId.get(10)).toMatchObject({ title: '12345', accessType: 'none' });
    expect(byId.get(4)?.raw).toEqual({ ...folders['4'], id: 4, level: 2, parent_id: 3 });
  });

  it("reads a folder's complexity level where the server sends it (the Vaultline server), else none", () => {
    const parsed = v.parse(FolderListSchema, [
      { id: '1', title: 'a', level: '1', access_type: 'W', complexity_level: '60' },
      { id: '2', title: 'b', level: '1', access_type: 'W', complexity_level: 0 },
      { id: '3', title: 'c', level: '1', access_type: 'W', complexity_level: '55' },
      { id: '4', title: 'd', level: '1', access_type: 'W', complexity_level: '' },
      { id: '5', title: 'e', level: '1', access_type: 'W' },
    ]);
    expect(parsed.map((folder) => folder.complexityLevel)).toEqual([60, 0, undefined, undefined, undefined]);
  });

  it('refuses a folder without id', () => {
    expect(v.safeParse(FolderListSchema, [{ title: 'x' }]).success).toBe(false);
  });
});

describe('FileListSchema', () => {
  it('reads file records keyed by id', () => {
    const files = v.parse(FileListSchema, {
      '2': { id: '2', name: 'cert.pem', type: 'application/x-pem-file', extension: 'pem', size: '1024' },
    });
    expect(files).toEqual([
      {
        id: 2,
        name: 'cert.pem',
        type: 'application/x-pem-file',
        extension: 'pem',
        size: 1024,
        raw: { id: 2, name: 'cert.pem', type: 'application/x-pem-file', extension: 'pem', size: 1024 },
      },
    ]);
  });

  it('defaults missing type, extension and size', () => {
    expect(v.parse(FileListSchema, [{ id: '1', name: 'a' }])[0]).toMatchObject({
      type: '',
      extension: '',
      size: 0,
    });
  });

  it('reads a size that is not a number as 0', () => {
    expect(v.parse(FileListSchema, [{ id: '1', name: 'a', size: 'big' }])[0]?.size).toBe(0);
  });
});

describe('result schemas', () => {
  it('reads add/item and add/folder results', () => {
    expect(v.parse(AddItemResultSchema, { status: 'item added', new_item_id: '54' })).toEqual({
      status: 'item added',
      id: 54,
    });
    expect(v.parse(AddFolderResultSchema, { status: 'folder created', new_folder_id: 55 })).toEqual({
      status: 'folder created',
      id: 55,
    });
    expect(v.safeParse(AddItemResultSchema, { status: 'item added' }).success).toBe(false);
  });

  it('reads update results as JSON or the text OK', () => {
    expect(v.parse(StatusResultSchema, { status: 'item updated' })).toEqual({ status: 'item updated' });
    expect(v.parse(StatusResultSchema, 'OK')).toEqual({ status: 'OK' });
    expect(v.safeParse(StatusResultSchema, 'KO').success).toBe(false);
  });

  it('reads delete results as {"status":"OK"} or the text OK, and nothing else', () => {
    expect(v.parse(OkResultSchema, { status: 'OK' })).toEqual({ status: 'OK' });
    expect(v.parse(OkResultSchema, 'OK')).toEqual({ status: 'OK' });
    expect(v.safeParse(OkResultSchema, { status: 'KO' }).success).toBe(false);
    expect(v.safeParse(OkResultSchema, 'ok').success).toBe(false);
    expect(v.safeParse(OkResultSchema, []).success).toBe(false);
  });

  it('reads add/file results with and without a file id', () => {
    expect(v.parse(AddFileResultSchema, { status: 'success' })).toEqual({ status: 'success', id: undefined });
    expect(v.parse(AddFileResultSchema, { status: 'success', new_file_id: '8' })).toEqual({
      status: 'success',
      id: 8,
    });
  });

  it('reads error bodies with and without a code', () => {
    expect(v.parse(ErrorBodySchema, { err: 'No results' })).toEqual({ err: 'No results' });
    expect(v.parse(ErrorBodySchema, { err: 'x', code: 'NO_DATA_EXIST' })).toMatchObject({
      code: 'NO_DATA_EXIST',
    });
  });
});
