import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { VaultClient } from '../src/client/types.ts';
import { createVaultClient } from '../src/create-client.ts';
import { isVaultError, VaultError } from '../src/errors.ts';
import { searchItems } from '../src/search.ts';
import { type ReplayServer, startReplayServer } from '../src/testing/teampass-replay-server.ts';
import { MAX_SEARCH_LENGTH } from '../src/text.ts';
import { startVaultlineStub, type VaultlineStub } from './vaultline-stub.ts';

const KEY = 'srchK3yA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q';

let teampass: ReplayServer;
let vaultline: VaultlineStub;
let tp: VaultClient;

function addItem(id: string, label: string, folder = '1'): void {
  teampass.items.set(id, {
    id,
    label,
    description: '',
    login: 'svc',
    email: '',
    url: '',
    pw: `pw-${id}`,
    folder_id: folder,
    tags: '',
    anyone_can_modify: '0',
  });
}

beforeAll(async () => {
  teampass = await startReplayServer({ apiKey: KEY });
  addItem('20', 'postgres prod');
  addItem('21', 'Postgres production replica');
  addItem('22', 'postgres staging');
  addItem('23', 'example.com admin');
  addItem('24', 'Café crème');
  addItem('25', 'Fête 🎉 party');
  addItem('26', 'postgres prod (other folder)', '2');
  vaultline = await startVaultlineStub({
    apiKey: KEY,
    features: ['bearer-auth', 'unicode-search'],
    maxResults: 2,
    labels: { 1: 'Postgres prod', 2: 'postgres prod EU', 3: 'postgres prod US', 4: 'Café crème' },
  });
});
afterAll(async () => {
  await teampass.close();
  await vaultline.close();
});
beforeEach(() => {
  teampass.reset();
  vaultline.requests.length = 0;
  tp = createVaultClient({ baseUrl: teampass.url, apiKey: KEY, retries: 0 });
});

function findUrls(): string[] {
  return teampass.requests.map((r) => r.url.split('?')[0]!).filter((url) => url.includes('/find/item/'));
}

describe('the TeamPass replay server searches like TeamPass', () => {
  it.each([
    ['postgres%20prod', 405, '{"err":"Item definition not numeric"}'],
    ['example.com', 405, '{"err":"Item definition not numeric"}'],
    ['caf%C3%A9', 405, '{"err":"Item definition not numeric"}'],
    ['', 405, '{"err":"Item definition not numeric"}'],
    ['0', 500, ''],
  ])('answers find/item/1/%s with HTTP %i', async (segment, status, body) => {
    const response = await fetch(`${teampass.url}/api/index.php/find/item/1;2/${segment}?apikey=${KEY}`);
    expect(response.status).toBe(status);
    expect(await response.text()).toBe(body);
  });

  it("accepts [A-Za-z0-9_:'-] and matches without case", async () => {
    const response = await fetch(`${teampass.url}/api/index.php/find/item/1/POSTGRES?apikey=${KEY}`);
    const records = (await response.json()) as { id: string }[];
    expect(records.map((r) => r.id).sort()).toEqual(['20', '21', '22']);
  });

  it('shows the defect: the raw client call with a space is refused', async () => {
    const error = await tp.findItems({ folderIds: [1], query: 'postgres prod' }).catch((e: unknown) => e);
    expect(isVaultError(error, 'invalid_request')).toBe(true);
    expect((error as VaultError).status).toBe(405);
  });
});

describe('searchItems on a TeamPass-compatible server', () => {
  it('searches the longest accepted run, then filters on the whole text (a space)', async () => {
    const result = await searchItems(tp, { folderIds: [1], text: 'postgres prod' });
    expect(findUrls()).toEqual(['/api/index.php/find/item/1/postgres']);
    expect(result.items.map((item) => item.id)).toEqual([20, 21]);
    expect(result).toMatchObject({ strategy: 'run', serverQuery: 'postgres', truncated: false });
    expect(result.maxResults).toBeUndefined();
  });

  it('handles a dot and keeps only the searched folders', async () => {
    const result = await searchItems(tp, { folderIds: [1], text: 'Example.COM' });
    expect(findUrls()).toEqual(['/api/index.php/find/item/1/Example']);
    expect(result.items.map((item) => item.label)).toEqual(['example.com admin']);
  });

  it('sends a text of accepted characters whole, even a short one', async () => {
    const result = await searchItems(tp, { folderIds: [1, 2], text: 'pg' });
    expect(findUrls()).toEqual(['/api/index.php/find/item/1;2/pg']);
    expect(result).toMatchObject({ strategy: 'full', serverQuery: 'pg', items: [] });
  });

  it('folds accents and case locally: "cafe" finds "Café crème", "CRÈME" too', async () => {
    expect((await searchItems(tp, { folderIds: [1], text: 'cafe' })).items.map((i) => i.id)).toEqual([24]);
    const accented = await searchItems(tp, { folderIds: [1], text: 'CRÈME' });
    // "CR" is too short to narrow: the folder is read and filtered here.
    expect(accented).toMatchObject({ strategy: 'folders', serverQuery: undefined });
    expect(accented.items.map((i) => i.id)).toEqual([24]);
  });

  it('reads the folders when no part can be sent (emoji, "0"), never sending 0', async () => {
    const emoji = await searchItems(tp, { folderIds: [1], text: '🎉' });
    expect(emoji.items.map((i) => i.id)).toEqual([25]);
    expect(emoji.strategy).toBe('folders');
    const zero = await searchItems(tp, { folderIds: [1], text: '0' });
    expect(zero.items).toEqual([]);
    expect(findUrls()).toEqual([]);
    expect(teampass.requests.map((r) => r.url.split('?')[0])).toEqual([
      '/api/index.php/read/folder/1',
      '/api/index.php/read/folder/1',
    ]);
  });

  it('finds nothing without asking when the fallback is none or there are no folders', async () => {
    expect(await searchItems(tp, { folderIds: [1], text: '🎉' }, { fallback: 'none' })).toMatchObject({
      strategy: 'none',
      items: [],
    });
    expect((await searchItems(tp, { folderIds: [], text: 'postgres' })).strategy).toBe('none');
    expect(teampass.requests).toEqual([]);
  });

  it.each([
    ['', /empty/],
    ['   ', /empty/],
    ['x'.repeat(MAX_SEARCH_LENGTH + 1), /at most 100/],
  ])('refuses %j before sending anything', async (text, message) => {
    const error = await searchItems(tp, { folderIds: [1], text }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VaultError);
    expect((error as VaultError).code).toBe('invalid_request');
    expect((error as VaultError).message).toMatch(message);
    expect(teampass.requests).toEqual([]);
  });

  it('accepts exactly MAX_SEARCH_LENGTH characters, counted as code points', async () => {
    const text = '😀'.repeat(MAX_SEARCH_LENGTH);
    expect((await searchItems(tp, { folderIds: [1], text })).items).toEqual([]);
  });
});

describe('searchItems on a Vaultline server', () => {
  it('sends the whole text, percent-encoded, and reports the cap', async () => {
    const vault = createVaultClient({ baseUrl: vaultline.url, apiKey: KEY });
    const result = await searchItems(vault, { folderIds: [1], text: 'postgres prod' });
    expect(result).toMatchObject({
      strategy: 'full',
      serverQuery: 'postgres prod',
      maxResults: 2,
      truncated: true,
    });
    expect(result.items.map((item) => item.id)).toEqual([1, 2]);
    expect(vaultline.requests.at(-1)).toEqual({
      url: '/api/index.php/find/item/1/postgres%20prod',
      authorization: `Bearer ${KEY}`,
    });
    const accents = await searchItems(vault, { folderIds: [1], text: 'Café' });
    expect(accents).toMatchObject({ strategy: 'full', truncated: false });
    expect(accents.items.map((item) => item.id)).toEqual([4]);
  });

  it('sends the longest part a URL can carry when the text holds a slash', async () => {
    const vault = createVaultClient({ baseUrl: vaultline.url, apiKey: KEY });
    const result = await searchItems(vault, { folderIds: [1], text: 'prod/eu' });
    expect(result.serverQuery).toBe('prod');
    expect(result.strategy).toBe('run');
    expect(result.items).toEqual([]);
  });

  it('uses capabilities passed in instead of asking', async () => {
    const caps = await tp.capabilities();
    teampass.reset();
    await searchItems(tp, { folderIds: [1], text: 'postgres' }, { capabilities: caps });
    expect(teampass.identifications).toEqual([]);
  });
});
