import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createVaultClient, type VaultClient } from '@vaultline/protocol';
import { createWireClient, type ItemValues, type WireClient } from '@vaultline/protocol/wire';
import { type PostgresCluster, startPostgresCluster } from '@vaultline/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateMasterKey } from '../src/crypto/master-key.ts';
import { findItems } from '../src/store/items.ts';
import { startTestVault, type TestVault } from '../src/testing.ts';
import {
  clientOf,
  expectJsonError,
  expectVaultError,
  rawRequest,
  STORES,
  startVaultOn,
} from './support/helpers.ts';

const ADMIN = { kind: 'admin', keyLabel: 'test' } as const;

describe.each(STORES)('word search on %s', (store) => {
  let cluster: PostgresCluster | undefined;
  let vault: TestVault;
  let admin: WireClient;
  /** The same key as a domain client: its items.search is the core's one search. */
  let adminVault: VaultClient;
  const folder: Record<string, number> = {};
  const id: Record<string, number> = {};

  async function add(label: string, where: string, values: { login?: string; url?: string } = {}) {
    const { id: added } = await admin.addItem({
      item: { label, password: `pw-${label.length}-Xy9!`, folderId: folder[where]!, ...values },
    });
    id[label] = added;
  }

  const searched = () => [folder.databases!, folder.web!];
  const labels = async (text: string, folderIds = searched()) =>
    (await adminVault.items.search(text, { folderIds })).items.map((item) => item.label);
  const found = async (query: string, folderIds = searched()) => {
    const answer = await rawRequest(
      vault.url,
      `/api/index.php/find/item/${folderIds.join(';')}/${query}?apikey=${vault.adminKey}`,
    );
    expect(answer.status, answer.body).toBe(200);
    return (JSON.parse(answer.body) as { label: string }[]).map((item) => item.label);
  };

  beforeAll(async () => {
    if (store === 'postgres') cluster = await startPostgresCluster();
    vault = await startVaultOn(store, cluster);
    admin = clientOf(vault);
    adminVault = createVaultClient({ baseUrl: vault.url, auth: vault.adminKey, retry: { retries: 0 } });
    folder.infrastructure = (await admin.addFolder({ folder: { title: 'Infrastructure' } })).id;
    folder.databases = (
      await admin.addFolder({ folder: { title: 'Databases', parentId: folder.infrastructure } })
    ).id;
    folder.web = (await admin.addFolder({ folder: { title: 'Web' } })).id;
    // The issue's item: nothing in its label says "db"; its URL and login do.
    await add('PostgreSQL production', 'databases', {
      login: 'app_rw',
      url: 'https://db.prod.internal:5432',
    });
    await add('prod db', 'databases');
    await add('Redis cache', 'databases', { login: 'cache_ro', url: 'redis://cache.staging.internal' });
    await add('Reproduce dbg', 'web');
    await add('Billing', 'web', { login: 'prod', url: 'https://db.example.com' });
    await add('Café Wi-Fi ☕', 'web', { login: 'Élodie' });
    await add('東京サーバー 🔑', 'web', { login: 'root' });
    await add('share \\\\fs01\\ops 100%_off', 'web');
  });

  afterAll(async () => {
    await vault?.close();
    await cluster?.stop();
  });

  it('says so in its identification: the core sends the whole text once', async () => {
    const info = await rawRequest(vault.url, '/api/index.php/info/version');
    expect(JSON.parse(info.body).features).toContain('word-search');
    expect((await admin.capabilities()).search).toBe('words');
    const result = await adminVault.items.search('  prod   db ', { folderIds: searched() });
    expect(result).toMatchObject({
      strategy: 'words',
      serverQuery: 'prod db',
      truncated: false,
      maxResults: 1000,
    });
  });

  it.each([['prod db'], ['db prod'], ['db.prod'], ['app_rw'], ['APP_RW internal'], ['postgres 5432']])(
    'finds "PostgreSQL production" at db.prod.internal by %j',
    async (text) => {
      expect(await labels(text)).toContain('PostgreSQL production');
    },
  );

  it('ranks label words first, then whole words, then label order', async () => {
    expect(await labels('prod db')).toEqual(['prod db', 'PostgreSQL production', 'Reproduce dbg', 'Billing']);
  });

  it('answers find/item itself with every word in the label, login, URL or folder path, in id order', async () => {
    expect(await found('prod%20db')).toEqual([
      'PostgreSQL production',
      'prod db',
      'Reproduce dbg',
      'Billing',
    ]);
    expect(await found('db.prod')).toEqual(['PostgreSQL production']);
    // Folder titles of the item's path, the parent's included.
    expect(await found('infrastructure%20cache')).toEqual(['Redis cache']);
    expect(await found('databases')).toEqual(['PostgreSQL production', 'prod db', 'Redis cache']);
    expect(await found('web%20root')).toEqual(['東京サーバー 🔑']);
    // Every word must be somewhere; a word never spans two values.
    expect(await found('prod%20mysql')).toEqual([]);
    expect(await found('production.db')).toEqual([]);
    expect(await found('app_rwhttps')).toEqual([]);
    expect(await found('infrastructuredatabases')).toEqual([]);
  });

  it('folds case, accents, compatibility forms, emoji and CJK on both sides', async () => {
    for (const text of ['cafe elodie', 'CAFÉ wi-fi', 'ｃａｆｅ ☕', '☕ ÉLODIE']) {
      expect(await labels(text), text).toEqual(['Café Wi-Fi ☕']);
    }
    expect(await labels('🔑 東京')).toEqual(['東京サーバー 🔑']);
    expect(await labels('サーバー root')).toEqual(['東京サーバー 🔑']);
  });

  it('leaves out punctuation inside words, as the core does: wifi finds "Café Wi-Fi"', async () => {
    expect(await found('wifi')).toEqual(['Café Wi-Fi ☕']);
    expect(await labels('cafe wifi')).toEqual(['Café Wi-Fi ☕']);
    expect(await labels('apprw dbprod')).toEqual(['PostgreSQL production']);
    expect(await labels('infra.structure')).toEqual(expect.arrayContaining(['prod db']));
  });

  it('matches %, _ and \\ literally and answers hostile text with nothing', async () => {
    expect(await found('100%25_')).toEqual(['share \\\\fs01\\ops 100%_off']);
    expect(await found('%5Cfs01%5Cops')).toEqual(['share \\\\fs01\\ops 100%_off']);
    expect(await found('%25%20_')).toEqual(['share \\\\fs01\\ops 100%_off']);
    expect(await found('%5C%5C%5C')).toEqual([]);
    expect(await labels("' OR 1=1 --")).toEqual([]);
    expect(await labels('"; DROP TABLE items; --')).toEqual([]);
    expect(await labels('\u202eevil prod')).toEqual([]);
  });

  it('finds a folder title as soon as the folder is renamed', async () => {
    const rename = (title: string) =>
      admin.updateFolder({ id: folder.web!, folder: { title, complexityLevel: 0, renewalPeriod: 0 } });
    await rename('Web Frontends');
    try {
      expect(await labels('frontends billing')).toEqual(['Billing']);
    } finally {
      await rename('Web');
    }
    expect(await labels('frontends billing')).toEqual([]);
  });

  it('finds an item by its new login and URL after an update, not by the old ones', async () => {
    const before = (await admin.readItems({ ids: [id.Billing!] }))[0]!;
    await admin.updateItem({
      id: id.Billing!,
      item: { label: 'Billing', password: 'pw-new-Xy9!', folderId: folder.web!, login: 'invoices', url: '' },
    });
    try {
      expect(await labels('billing invoices')).toEqual(['Billing']);
      expect(await labels('billing prod')).toEqual([]);
    } finally {
      await admin.updateItem({
        id: id.Billing!,
        item: {
          label: 'Billing',
          password: before.password,
          folderId: folder.web!,
          login: 'prod',
          url: before.url,
        },
      });
    }
  });

  it('takes 100 characters counted as code points (100 emoji are 200 UTF-16 units), not 101', async () => {
    const hundred = '🔑'.repeat(100);
    expect(await found(encodeURIComponent(hundred))).toEqual([]);
    expect((await adminVault.items.search(hundred, { folderIds: searched() })).items).toEqual([]);
    const longer = await rawRequest(
      vault.url,
      `/api/index.php/find/item/${folder.web}/${encodeURIComponent(`${hundred}x`)}?apikey=${vault.adminKey}`,
    );
    expectJsonError(longer, 400, 'invalid_request');
    expect(longer.body).toContain('at most 100 characters, received 101');
    await expectVaultError(
      admin.findItems({ folderIds: searched(), query: ' \u0301 ' }),
      'invalid_request',
      400,
    );
  });

  it('keeps the cap and says when results were left out', async () => {
    const many = (await admin.addFolder({ folder: { title: 'Many' } })).id;
    const values = (n: number): ItemValues => ({
      label: `bulk entry ${n}`,
      password: 'pw-bulk-Xy9!',
      description: '',
      folderId: String(many),
      login: n % 2 === 0 ? 'even' : 'odd',
      email: '',
      url: '',
      tags: '',
      anyoneCanModify: '0',
    });
    await vault.admin.addItems(Array.from({ length: 1001 }, (_, n) => values(n)));
    const all = await adminVault.items.search('entry bulk', { folderIds: [many] });
    expect(all).toMatchObject({ strategy: 'words', truncated: true });
    expect(all.items).toHaveLength(1000);
    const even = await adminVault.items.search('entry even', { folderIds: [many] });
    expect(even).toMatchObject({ truncated: false });
    expect(even.items).toHaveLength(501);
  });

  it("keeps the label-only match (TeamPass's) in the store for a profile that needs it", async () => {
    const ids = searched();
    const label = async (text: string) =>
      (await findItems(vault.server.vault.ctx, ADMIN, ids, text, 'label')).map((item) => item.label);
    expect(await label('prod db')).toEqual(['prod db']);
    expect(await label('sql PROD')).toEqual(['PostgreSQL production']);
    expect(await label('app_rw')).toEqual([]);
    expect(await label('db prod')).toEqual([]);
  });
});

describe.each(STORES)('the search text of items written before word search, on %s', (store) => {
  let cluster: PostgresCluster | undefined;
  let dataDir: string | undefined;

  afterAll(async () => {
    await cluster?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('is filled in when the server starts, so their logins and URLs are found', async () => {
    const masterKey = generateMasterKey();
    let place: { databaseUrl: string; masterKey: string } | { dataDir: string; masterKey: string };
    if (store === 'postgres') {
      cluster = await startPostgresCluster();
      place = { databaseUrl: await cluster.createDatabase(), masterKey };
    } else {
      dataDir = await mkdtemp(join(tmpdir(), 'vaultline-search-'));
      place = { dataDir, masterKey };
    }
    const first = await startTestVault(place);
    const client = createWireClient({ baseUrl: first.url, auth: first.adminKey, retry: { retries: 0 } });
    const folderId = (await client.addFolder({ folder: { title: 'Old' } })).id;
    await client.addItem({
      item: {
        label: 'PostgreSQL production',
        password: 'pw-old-Xy9!',
        folderId,
        login: 'app_rw',
        url: 'db.prod.internal',
      },
    });
    // The schema and the items as a server before word search left them (migration 8 undone).
    await first.server.vault.db.exec(`
      DROP INDEX items_search_key_trgm; DROP INDEX items_search_key_missing;
      ALTER TABLE items DROP COLUMN search_key;
      DELETE FROM schema_migrations WHERE version = 8;
    `);
    await first.close();
    const second = await startTestVault(place);
    try {
      const again = createVaultClient({ baseUrl: second.url, auth: second.adminKey, retry: { retries: 0 } });
      for (const text of ['prod db', 'app_rw', 'old internal']) {
        const result = await again.items.search(text, { folderIds: [folderId] });
        expect(
          result.items.map((item) => item.label),
          text,
        ).toEqual(['PostgreSQL production']);
      }
      const [{ missing }] = (await second.server.vault.db.query<{ missing: number }>(
        "SELECT count(*)::int AS missing FROM items WHERE search_key = ''",
      )) as [{ missing: number }];
      expect(missing).toBe(0);
    } finally {
      await second.close();
    }
  });
});
