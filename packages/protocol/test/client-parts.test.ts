import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSender, type PreparedRequest } from '../src/client/attempt.ts';
import { mergeItemFields, readOneItem } from '../src/client/helpers.ts';
import { chunkIds, createCallPlanner, urlLength } from '../src/client/plan.ts';
import type { RequestEvent } from '../src/client/types.ts';
import { createVaultClient } from '../src/create-client.ts';
import { createRedactor, REDACTED, VaultError } from '../src/errors.ts';
import { type ReplayServer, startReplayServer } from '../src/testing/teampass-replay-server.ts';

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

describe('client/plan: planning of calls', () => {
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

describe('client/attempt and client/helpers against the replay server', () => {
  let server: ReplayServer;
  beforeAll(async () => {
    server = await startReplayServer({ apiKey: KEY });
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());

  function request(path: string): PreparedRequest {
    return {
      url: `${server.url}/api/index.php${path}?apikey=${KEY}`,
      displayUrl: `${server.url}/api/index.php${path}?apikey=${REDACTED}`,
      headers: {},
    };
  }

  it('sends one prepared request, reports it redacted, and maps error answers', async () => {
    const events: RequestEvent[] = [];
    const send = createSender({
      fetch: globalThis.fetch,
      timeoutMs: 2000,
      retries: 0,
      retryDelayMs: 1,
      maxResponseBytes: 1024 * 1024,
      redact: createRedactor([KEY]),
      onRequest: (event) => events.push(event),
    });
    const items = (await send('readItems', request('/read/items/10'), undefined, undefined)) as {
      id: number;
    }[];
    expect(items.map((item) => item.id)).toEqual([10]);
    const error = await send('readUserItems', request('/read/userpw/nobody'), undefined, undefined).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'not_found', serverMessage: 'User does not exist' });
    expect(events.map((event) => [event.endpoint, event.status, event.errorCode])).toEqual([
      ['readItems', 200, undefined],
      ['readUserItems', 200, 'not_found'],
    ]);
    expect(JSON.stringify(events)).not.toContain(KEY);
  });

  it('stops reading a body above the limit', async () => {
    const send = createSender({
      fetch: globalThis.fetch,
      timeoutMs: 2000,
      retries: 0,
      retryDelayMs: 1,
      maxResponseBytes: 1000,
      redact: createRedactor([KEY]),
    });
    server.fault({ reply: { streamBytes: 50_000 } });
    const error = await send('readItems', request('/read/items/10'), undefined, undefined).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'too_large' });
  });

  it('reads one item and merges fields into all nine values', async () => {
    const vault = createVaultClient({ baseUrl: server.url, apiKey: KEY, keyTransport: 'query' });
    expect((await readOneItem(vault, 10)).label).toBe('db');
    await expect(readOneItem(vault, 999)).rejects.toMatchObject({ code: 'not_found' });
    await mergeItemFields(vault, 10, { url: 'https://new.example.com', login: undefined });
    const stored = server.items.get('10');
    expect(stored?.url).toBe('https://new.example.com');
    expect(stored?.login).toBe('admin');
    expect(stored?.pw).toBe('pw-db-seeded');
    await expect(mergeItemFields(vault, 12, { url: 'x' })).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
