import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WireClient } from '../src/client/types.ts';
import { isVaultError, VaultError } from '../src/errors.ts';
import { searchItems } from '../src/search.ts';
import { type ReplayServer, startReplayServer } from '../src/testing/teampass-replay-server.ts';
import { MAX_SEARCH_LENGTH } from '../src/text.ts';
import { createWireClient } from '../src/vault/wire-client.ts';
import { startVaultlineStub, type VaultlineStub } from './vaultline-stub.ts';

const KEY = 'srchK3yA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q';

let teampass: ReplayServer;
let vaultline: VaultlineStub;
let tp: WireClient;

function addItem(id: string, label: string, folder = '1', more: { login?: string; url?: string } = {}): void {
  teampass.items.set(id, {
    id,
    label,
    description: '',
    login: more.login ?? 'svc',
    email: '',
    url: more.url ?? '',
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
  // The item: nothing in its label says "db", its URL and login do.
  addItem('27', 'PostgreSQL production', '1', { login: 'app_rw', url: 'https://db.prod.internal:5432' });
  addItem('28', 'Billing', '1', { login: 'prod', url: 'https://billing.example.com' });
  addItem('29', 'Redis cache', '2', { login: 'app_rw', url: 'redis://cache.prod.internal' });
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
  tp = createWireClient({ baseUrl: teampass.url, auth: KEY, retry: { retries: 0 } });
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
    expect(records.map((r) => r.id).sort()).toEqual(['20', '21', '22', '27']);
  });

  it('shows the defect: the raw client call with a space is refused', async () => {
    const error = await tp.findItems({ folderIds: [1], query: 'postgres prod' }).catch((e: unknown) => e);
    expect(isVaultError(error, 'invalid_request')).toBe(true);
    expect((error as VaultError).status).toBe(405);
  });
});

function readUrls(): string[] {
  return teampass.requests.map((r) => r.url.split('?')[0]!);
}

describe('searchItems on a TeamPass-compatible server', () => {
  it.each([
    ['prod db', [27]],
    ['db.prod', [27]],
    ['app_rw', [27]],
    ['DB PROD', [27]],
    ['internal postgres', [27]],
    ['app_rw  redis', []],
  ])(
    'finds %j by words in the label, login and URL: reads the folders (find/item sees labels only)',
    async (text, ids) => {
      const result = await searchItems(tp, { folderIds: [1], text });
      expect(result.items.map((item) => item.id)).toEqual(ids);
      expect(result).toMatchObject({ strategy: 'folders', serverQuery: undefined, truncated: false });
      expect(findUrls()).toEqual([]);
      expect(readUrls()).toEqual(['/api/index.php/read/folder/1']);
    },
  );

  it('matches folder titles, keeps only the searched folders, and ranks label words first', async () => {
    teampass.folders.set('3', {
      id: '3',
      title: 'Prod',
      parent_id: '0',
      complexity: '0',
      renewal: '0',
      personal: '0',
    });
    addItem('30', 'mail relay', '3');
    try {
      const result = await searchItems(tp, { folderIds: [1, 2, 3], text: 'prod' });
      // "Prod" is the title of folder 3: its items hold the word through their path.
      expect(result.items.map((item) => [item.id, item.label])).toEqual([
        [20, 'postgres prod'],
        [26, 'postgres prod (other folder)'],
        [27, 'PostgreSQL production'],
        [21, 'Postgres production replica'],
        [28, 'Billing'],
        [30, 'mail relay'],
        [29, 'Redis cache'],
      ]);
      expect(result.hits.map((hit) => hit.rank)).toEqual([
        { labelWords: 1, wholeWords: 1, prefixWords: 0 },
        { labelWords: 1, wholeWords: 1, prefixWords: 0 },
        { labelWords: 1, wholeWords: 1, prefixWords: 0 },
        { labelWords: 1, wholeWords: 0, prefixWords: 1 },
        { labelWords: 0, wholeWords: 1, prefixWords: 0 },
        { labelWords: 0, wholeWords: 1, prefixWords: 0 },
        { labelWords: 0, wholeWords: 1, prefixWords: 0 },
      ]);
      const only = await searchItems(tp, { folderIds: [2], text: 'prod' });
      expect(only.items.map((item) => item.id)).toEqual([26, 29]);
    } finally {
      teampass.items.delete('30');
      teampass.folders.delete('3');
    }
  });

  it('with the labels fallback, sends the longest accepted run and keeps labels holding every word', async () => {
    const result = await searchItems(tp, { folderIds: [1], text: 'prod postgres' }, { fallback: 'labels' });
    expect(findUrls()).toEqual(['/api/index.php/find/item/1/postgres']);
    expect(result.items.map((item) => item.id)).toEqual([20, 21, 27]);
    expect(result).toMatchObject({ strategy: 'run', serverQuery: 'postgres', truncated: false });
    expect(result.maxResults).toBeUndefined();
    // The login and the URL are not searched that way: the "prod db" finds nothing.
    expect(
      (await searchItems(tp, { folderIds: [1], text: 'prod db' }, { fallback: 'labels' })).items,
    ).toEqual([]);
  });

  it('with the labels fallback, handles a dot and keeps only the searched folders', async () => {
    const result = await searchItems(tp, { folderIds: [1], text: 'Example.COM' }, { fallback: 'labels' });
    expect(findUrls()).toEqual(['/api/index.php/find/item/1/Example']);
    expect(result.items.map((item) => item.label)).toEqual(['example.com admin']);
  });

  it('with the labels fallback, sends a text of accepted characters whole, even a short one', async () => {
    const result = await searchItems(tp, { folderIds: [1, 2], text: 'pg' }, { fallback: 'labels' });
    expect(findUrls()).toEqual(['/api/index.php/find/item/1;2/pg']);
    expect(result).toMatchObject({ strategy: 'full', serverQuery: 'pg', items: [] });
  });

  it('folds accents and case locally: "cafe" finds "Café crème", "CRÈME" too', async () => {
    expect((await searchItems(tp, { folderIds: [1], text: 'cafe' })).items.map((i) => i.id)).toEqual([24]);
    const accented = await searchItems(tp, { folderIds: [1], text: 'CRÈME' });
    expect(accented).toMatchObject({ strategy: 'folders', serverQuery: undefined });
    expect(accented.items.map((i) => i.id)).toEqual([24]);
  });

  it('reads the folders for emoji and "0", never sending 0', async () => {
    const emoji = await searchItems(tp, { folderIds: [1], text: '🎉' });
    expect(emoji.items.map((i) => i.id)).toEqual([25]);
    expect(emoji.strategy).toBe('folders');
    const zero = await searchItems(tp, { folderIds: [1], text: '0' });
    expect(zero.items).toEqual([]);
    expect(findUrls()).toEqual([]);
    expect(readUrls()).toEqual(['/api/index.php/read/folder/1', '/api/index.php/read/folder/1']);
  });

  it('finds nothing without asking when the labels fallback has nothing to send or there are no folders', async () => {
    expect(await searchItems(tp, { folderIds: [1], text: '🎉' }, { fallback: 'labels' })).toMatchObject({
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
  it("does not trust the word search for a key of the teampass profile: it asks the key's rules, then searches the folders", async () => {
    const stub = await startVaultlineStub({
      apiKey: KEY,
      features: ['bearer-auth', 'unicode-search', 'word-search'],
      teampassProfile: true,
    });
    try {
      const vault = createWireClient({ baseUrl: stub.url, auth: KEY });
      // "svc" is every item's login and "team" its folder path: no label holds them.
      const result = await searchItems(vault, { folderIds: [1], text: 'svc prod team' });
      expect(result.items.map((item) => item.id)).toEqual([1]);
      expect(result.strategy).toBe('folders');
      expect(await vault.capabilities()).toMatchObject({
        server: 'vaultline',
        search: 'full',
        features: ['bearer-auth', 'unicode-search'],
      });
      expect(stub.requests.map((r) => [r.url, r.authorization])).toEqual([
        ['/api/index.php/info/version', undefined],
        ['/api/index.php/info/version', `Bearer ${KEY}`],
        ['/api/index.php/read/folder/1', `Bearer ${KEY}`],
      ]);
    } finally {
      await stub.close();
    }
  });

  it('sends the whole text once to a words server, percent-encoded, and reports the cap', async () => {
    const words = await startVaultlineStub({
      apiKey: KEY,
      features: ['bearer-auth', 'unicode-search', 'word-search'],
      maxResults: 2,
      labels: { 1: 'Postgres prod', 2: 'postgres prod EU', 3: 'postgres prod US', 4: 'Café crème' },
    });
    try {
      const vault = createWireClient({ baseUrl: words.url, auth: KEY });
      const result = await searchItems(vault, { folderIds: [1], text: 'prod postgres' });
      expect(result).toMatchObject({
        strategy: 'words',
        serverQuery: 'prod postgres',
        maxResults: 2,
        truncated: true,
      });
      expect(result.items.map((item) => item.id)).toEqual([1, 2]);
      // Keyless, who the server is; with the key (once), that this key gets the word search.
      expect(words.requests.map((r) => [r.url, r.authorization])).toEqual([
        ['/api/index.php/info/version', undefined],
        ['/api/index.php/info/version', `Bearer ${KEY}`],
        ['/api/index.php/find/item/1/prod%20postgres', `Bearer ${KEY}`],
      ]);
      const accents = await searchItems(vault, { folderIds: [1], text: 'Café svc' });
      expect(accents).toMatchObject({ strategy: 'words', truncated: false });
      expect(accents.items.map((item) => item.id)).toEqual([4]);
      // What a URL cannot carry splits the words sent; the core keeps the items with the whole word.
      const slash = await searchItems(vault, { folderIds: [1], text: 'prod/eu' });
      expect(slash).toMatchObject({ strategy: 'words', serverQuery: 'prod eu', items: [] });
    } finally {
      await words.close();
    }
  });

  it('reads the folders of a Vaultline server without word search (its find/item matches labels only)', async () => {
    const vault = createWireClient({ baseUrl: vaultline.url, auth: KEY });
    const result = await searchItems(vault, { folderIds: [1], text: 'prod postgres' });
    expect(result).toMatchObject({ strategy: 'folders', serverQuery: undefined, truncated: false });
    expect(result.items.map((item) => item.id)).toEqual([1, 2, 3]);
    expect(vaultline.requests.at(-1)?.url).toBe('/api/index.php/read/folder/1');
    const labels = await searchItems(vault, { folderIds: [1], text: 'prod/eu' }, { fallback: 'labels' });
    expect(labels).toMatchObject({ strategy: 'run', serverQuery: 'prod', items: [] });
  });

  it('uses capabilities passed in instead of asking', async () => {
    const caps = await tp.capabilities();
    teampass.reset();
    await searchItems(tp, { folderIds: [1], text: 'postgres' }, { capabilities: caps });
    expect(teampass.identifications).toEqual([]);
  });
});
