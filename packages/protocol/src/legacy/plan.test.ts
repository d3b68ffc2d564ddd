import { describe, expect, it } from 'vitest';
import { REDACTED, VaultError } from '../errors.ts';
import { chunkIds, createCallPlanner, urlLength } from './plan.ts';

const KEY = 'partsK3yA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p';
const ROOT = 'http://vault.test/api/index.php';

function planner(maxUrlLength = 8192) {
  return createCallPlanner({
    apiRoot: ROOT,
    apiKey: KEY,
    maxUrlLength,
    context: { folderEncoding: 'blob' },
    headers: { accept: 'application/json' },
  });
}

function thrown(fn: () => unknown): VaultError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(VaultError);
    return error as VaultError;
  }
  throw new Error('expected a throw');
}

describe('legacy/plan: planning of calls', () => {
  it('puts the key first in the query, or in the header, and never in the display URL', () => {
    const [query] = planner().plan('readItems', { ids: [1, 2] }, 'query').requests;
    expect(query).toEqual({
      url: `${ROOT}/read/items/1;2?apikey=${KEY}`,
      displayUrl: `${ROOT}/read/items/1;2?apikey=${REDACTED}`,
      headers: { accept: 'application/json' },
    });
    const [header] = planner().plan('readItems', { ids: [1, 2] }, 'header').requests;
    expect(header).toEqual({
      url: `${ROOT}/read/items/1;2`,
      displayUrl: `${ROOT}/read/items/1;2`,
      headers: { accept: 'application/json', authorization: `Bearer ${KEY}` },
    });
  });

  it('hides secret segments in the display URL', () => {
    const [request] = planner().plan(
      'addItem',
      { item: { label: 'l', password: 'p', folderId: 1 } },
      'query',
    ).requests;
    expect(request?.displayUrl).toBe(`${ROOT}/add/item/${REDACTED}?apikey=${REDACTED}`);
  });

  it('batches delete/folder four ids per call and merges the first answer', () => {
    const plan = planner().plan('deleteFolders', { ids: [1, 2, 3, 4, 5, 6, 7, 8, 9] }, 'header');
    expect(plan.requests.map((r) => r.url.split('/').pop())).toEqual(['1;2;3;4', '5;6;7;8', '9']);
    expect(plan.merge([{ status: 'OK' }, { status: 'OK' }, { status: 'OK' }])).toEqual({ status: 'OK' });
  });

  it('splits long id lists under the URL limit and concatenates the records', () => {
    const ids = Array.from({ length: 400 }, (_, i) => 100_000 + i);
    const plan = planner(600).plan('readItems', { ids }, 'query');
    expect(plan.requests.length).toBeGreaterThan(1);
    for (const request of plan.requests) expect(urlLength(request.url)).toBeLessThanOrEqual(600);
    expect(
      plan.requests.flatMap((r) => r.url.split('/').pop()!.split('?')[0]!.split(';')).map(Number),
    ).toEqual(ids);
    expect(plan.merge([[{ id: 1 }], [{ id: 2 }]])).toEqual([{ id: 1 }, { id: 2 }]);
    expect(plan.merge([{ status: 'x' }, [{ id: 2 }]])).toEqual({ status: 'x' });
  });

  it("splits id lists by the server's id limit as well as by the URL length", () => {
    const ids = Array.from({ length: 1500 }, (_, i) => i + 1);
    const sizes = (plan: { requests: { url: string }[] }) =>
      plan.requests.map((request) => request.url.split('/').pop()!.split('?')[0]!.split(';').length);
    // 1,500 short ids fit one URL of 8,192 bytes, but not one call of a server that takes 1,000.
    expect(sizes(planner().plan('readItems', { ids }, 'header'))).toEqual([1500]);
    const plan = planner().plan('readItems', { ids }, 'header', 1000);
    expect(sizes(plan)).toEqual([1000, 500]);
    expect(plan.requests.flatMap((r) => r.url.split('/').pop()!.split(';')).map(Number)).toEqual(ids);
    // Long ids: the URL limit still splits below the id limit.
    const long = Array.from({ length: 2500 }, (_, i) => 1_000_000 + i);
    for (const request of planner().plan('readItems', { ids: long }, 'query', 1000).requests) {
      expect(urlLength(request.url)).toBeLessThanOrEqual(8192);
      expect(request.url.split('/').pop()!.split('?')[0]!.split(';').length).toBeLessThanOrEqual(1000);
    }
    // Every batched row: read/folder, delete/item, find/item's folders; delete/folder keeps its four.
    expect(sizes(planner().plan('readFolders', { ids: [1, 2, 3] }, 'header', 2))).toEqual([2, 1]);
    expect(sizes(planner().plan('deleteItems', { ids: [1, 2, 3] }, 'header', 2))).toEqual([2, 1]);
    expect(
      planner()
        .plan('findItems', { folderIds: [1, 2, 3], query: 'db' }, 'header', 2)
        .requests.map((request) => request.url.replace(`${ROOT}/find/item/`, '')),
    ).toEqual(['1;2/db', '3/db']);
    expect(sizes(planner().plan('deleteFolders', { ids: [1, 2, 3, 4, 5] }, 'header', 1000))).toEqual([4, 1]);
    expect(sizes(planner().plan('deleteFolders', { ids: [1, 2, 3, 4, 5] }, 'header', 3))).toEqual([3, 2]);
  });

  it("keeps only the asked folders' records of read/folder", () => {
    const plan = planner().plan('readFolders', { ids: [1] }, 'query');
    expect(plan.merge([[{ folderId: 1 }, { folderId: 2 }]])).toEqual([{ folderId: 1 }]);
  });

  it('refuses a write or one id whose URL is above the limit, before sending', () => {
    const write = thrown(() =>
      planner(200).plan('addItem', { item: { label: 'x'.repeat(300), password: 'p', folderId: 1 } }, 'query'),
    );
    expect(write.code).toBe('too_large');
    expect(write.message).toMatch(/above the limit of 200/);
    expect(write.url).not.toContain(KEY);
    const id = thrown(() => planner(40).plan('readItems', { ids: [123_456_789] }, 'query'));
    expect(id.message).toMatch(/one id alone/);
    expect(thrown(() => planner().plan('readItems', { ids: [0] }, 'query')).code).toBe('invalid_request');
  });

  it('builds the multipart body of add/file', async () => {
    const plan = planner().plan(
      'addFile',
      { itemId: 7, file: new Uint8Array([1, 2]), fileName: 'a.bin' },
      'query',
    );
    expect(plan.requests[0]?.url).toBe(`${ROOT}/add/file?apikey=${KEY}`);
    expect(plan.body?.get('item_id')).toBe('7');
    const file = plan.body?.get('file') as File;
    expect(file.name).toBe('a.bin');
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(new Uint8Array([1, 2]));
  });

  it('chunkIds groups by size and length; urlLength counts bytes', () => {
    expect(chunkIds(['1', '2', '3'], 2, (chunk) => 10 + chunk.join(';').length, 100)).toEqual([
      ['1', '2'],
      ['3'],
    ]);
    expect(chunkIds(['12345'], 9, (chunk) => 10 + chunk.join(';').length, 12)).toBeUndefined();
    expect(urlLength('é')).toBe(2);
    expect(urlLength('e')).toBe(1);
  });
});
