import { userInfo } from 'node:os';
// The protocol's TeamPass replay server: real TeamPass answers, on 127.0.0.1.
import { type ReplayServer, startReplayServer } from '@vaultline/protocol/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoVault, startTestVault, type TestVault } from '../src/testing.ts';
import { runCli, tempDirs } from './support/cli.ts';
import { clientOf, expectNoSecrets, TEST_OPERATOR } from './support/helpers.ts';

const cli = (args: string[], env: Record<string, string>) => runCli(args, env);
const tempDir = tempDirs('vaultline-import-');

interface Summary {
  source: string;
  dryRun: boolean;
  folders: { added: number; existing: number };
  items: { added: number; existing: number };
  files: { added: number; existing: number };
  users: { added: number; existing: number };
  rights: { added: number; existing: number };
  skipped: { what: string; reason: string }[];
}

describe('vaultline-server import from another vault server', () => {
  let source: TestVault;
  let demo: DemoVault;
  let target: string;
  const outputs: string[] = [];

  beforeAll(async () => {
    source = await startTestVault();
    demo = await source.seedDemo();
    target = await tempDir();
  });

  afterAll(async () => {
    await source?.close();
  });

  const importArgs = (...extra: string[]) => [
    'import',
    '--from',
    source.url,
    '--api-key',
    source.adminKey,
    '--login',
    'alice',
    '--login',
    'bob',
    '--login',
    'carol',
    ...extra,
  ];

  it('reports what a dry run would add, and writes nothing', async () => {
    const dry = await cli(importArgs('--dry-run', '--json'), { VAULTLINE_DATA_DIR: target });
    outputs.push(dry.stdout, dry.stderr);
    expect(dry.code, dry.stderr).toBe(0);
    const summary = JSON.parse(dry.stdout) as Summary;
    expect(summary).toMatchObject({
      dryRun: true,
      folders: { added: 6 },
      items: { added: 8 },
      files: { added: 2 },
    });
    const vault = await startTestVault({ dataDir: target });
    try {
      expect(await vault.server.vault.db.query('SELECT id FROM folders')).toEqual([]);
      expect(await vault.server.vault.db.query('SELECT id FROM items')).toEqual([]);
    } finally {
      await vault.close();
    }
  });

  it('copies folders, items with their values, attachments and each login’s rights, audited as the importer', async () => {
    const result = await cli(importArgs(), { VAULTLINE_DATA_DIR: target });
    outputs.push(result.stdout, result.stderr);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/folders\s+added 6, already here 0/);
    expect(result.stdout).toMatch(/items\s+added 8, already here 0/);
    expect(result.stdout).toMatch(/files\s+added 2, already here 0/);
    expect(result.stdout).toMatch(/users\s+added 3, already here 0/);
    // Alice's personal folder (and its item) stays with her.
    expect(result.stdout).toMatch(/folder \d+ \(\d+\): a personal folder/);

    const copy = await startTestVault({ dataDir: target });
    try {
      const from = clientOf(source);
      const to = clientOf(copy);
      for (const login of ['alice', 'bob', 'carol']) {
        const rights = async (client: typeof from) =>
          (await client.readUserFolders({ login }))
            .filter((folder) => !folder.personal)
            .map((folder) => [folder.title, folder.level, folder.accessType])
            .sort();
        expect(await rights(to), login).toEqual(await rights(from));
      }
      const strip = (items: Awaited<ReturnType<typeof from.readUserItems>>) =>
        items
          .map((item) => [
            item.label,
            item.password,
            item.description,
            item.login,
            item.email,
            item.url,
            item.path,
          ])
          .sort();
      expect(strip(await to.readUserItems({ login: 'bob' }))).toEqual(
        strip(await from.readUserItems({ login: 'bob' })),
      );
      const [prod] = await to.findItems({
        folderIds: (await to.readUserFolders({ login: 'bob' })).map((f) => f.id),
        query: 'PostgreSQL production',
      });
      expect(prod).toBeDefined();
      const [file] = await to.listFiles({ itemId: prod!.id });
      expect(file).toMatchObject({ name: 'db-ca.pem' });
      const bytes = (await to.downloadFile({ id: file!.id })).bytes;
      const [sourceFile] = await from.listFiles({ itemId: demo.items.postgresProd! });
      expect(Buffer.from(bytes)).toEqual(
        Buffer.from((await from.downloadFile({ id: sourceFile!.id })).bytes),
      );

      const audit = await copy.server.vault.adminAs(TEST_OPERATOR).listAudit({ limit: 1000 });
      const imported = audit.filter((entry) => entry.address === 'import');
      expect(imported.filter((entry) => entry.action === 'add/item')).toHaveLength(8);
      expect(imported.every((entry) => entry.actor === userInfo().username && entry.keyLabel === '')).toBe(
        true,
      );
      expect(JSON.stringify(audit)).not.toContain(source.adminKey);
    } finally {
      await copy.close();
    }
  });

  it('adds only what is new on a re-run, and says so', async () => {
    const again = await cli(importArgs(), { VAULTLINE_DATA_DIR: target });
    outputs.push(again.stdout, again.stderr);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/items\s+added 0, already here 8/);
    expect(again.stdout).toMatch(/Nothing new to import/);

    const added = await clientOf(source).addItem({
      item: { label: 'Added later', password: 'later-password-1', folderId: demo.folders.ci! },
    });
    const third = await cli(importArgs('--json'), { VAULTLINE_DATA_DIR: target });
    outputs.push(third.stdout, third.stderr);
    const summary = JSON.parse(third.stdout) as Summary;
    expect(summary).toMatchObject({
      items: { added: 1, existing: 8 },
      folders: { added: 0, existing: 6 },
      files: { added: 0, existing: 2 },
      users: { added: 0, existing: 3 },
      rights: { added: 0 },
    });
    const copy = await startTestVault({ dataDir: target });
    try {
      const found = await clientOf(copy).readUserItems({ login: 'alice' });
      expect(found.find((item) => item.label === 'Added later')?.password).toBe('later-password-1');
      expect(added.id).toBeGreaterThan(0);
    } finally {
      await copy.close();
    }
    expectNoSecrets(outputs, [source.adminKey]);
  });

  it('refuses a wrong source key without printing it, and imports nothing', async () => {
    const empty = await tempDir();
    const wrongKey = `vlk_${'w'.repeat(43)}`;
    const result = await cli(['import', '--from', source.url, '--api-key', wrongKey, '--login', 'alice'], {
      VAULTLINE_DATA_DIR: empty,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/error: /);
    expectNoSecrets([result.stdout, result.stderr], [wrongKey]);
  });

  it.each([
    [['import', '--api-key', 'k', '--login', 'a'], /required option '--from <url>'/],
    [['import', '--from', 'http://127.0.0.1:9', '--login', 'a'], /missing the source key/],
    [['import', '--from', 'http://127.0.0.1:9', '--api-key', 'k'], /at least one --login/],
  ])('refuses %j as a usage error (exit 2)', async (args, message) => {
    const result = await cli(args, { VAULTLINE_DATA_DIR: await tempDir(), VAULTLINE_IMPORT_API_KEY: '' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });
});

describe('vaultline-server import from TeamPass (the protocol replay server)', () => {
  const KEY = 'tp-import-key-0123456789abcdef';
  let replay: ReplayServer;

  beforeAll(async () => {
    replay = await startReplayServer({ apiKey: KEY });
    replay.files.set('500', {
      id: '500',
      itemId: '10',
      name: 'ca.pem',
      type: 'application/x-pem-file',
      bytes: Buffer.from('-----BEGIN CERTIFICATE-----\nreplay\n-----END CERTIFICATE-----\n'),
    });
  });

  afterAll(async () => {
    await replay?.close();
  });

  it('leaves nothing half-imported when the source fails part way', async () => {
    const target = await tempDir();
    replay.fault({ match: (request) => request.url.includes('/read/files/'), reply: { destroy: true } });
    const result = await cli(['import', '--from', replay.url, '--login', 'alice', '--attachments'], {
      VAULTLINE_DATA_DIR: target,
      VAULTLINE_IMPORT_API_KEY: KEY,
    });
    replay.reset();
    expect(result.code).toBe(1);
    expectNoSecrets([result.stdout, result.stderr], [KEY]);
    const vault = await startTestVault({ dataDir: target });
    try {
      expect(await vault.server.vault.db.query('SELECT id FROM folders')).toEqual([]);
      expect(await vault.server.vault.db.query('SELECT id FROM items')).toEqual([]);
      expect(await vault.server.vault.db.query('SELECT login FROM users')).toEqual([]);
    } finally {
      await vault.close();
    }
  });

  it('imports its folders, items, attachment and rights, skipping what it cannot read, with reasons', async () => {
    const target = await tempDir();
    // The replay server has file endpoints, as a TeamPass fork may: asked for with --attachments.
    const result = await cli(
      ['import', '--from', replay.url, '--login', 'alice', '--login', 'norole', '--attachments'],
      {
        VAULTLINE_DATA_DIR: target,
        VAULTLINE_IMPORT_API_KEY: KEY,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/folders\s+added 2/);
    expect(result.stdout).toMatch(/items\s+added 2/);
    expect(result.stdout).toMatch(/files\s+added 1/);
    expect(result.stdout).toMatch(/item 12 \(personal\): Expected a non-empty password/);
    expect(result.stdout).toMatch(/login norole: the source answered/);
    expectNoSecrets([result.stdout, result.stderr], [KEY]);
    // The key went in the query string only to the source, never into this vault.
    const vault = await startTestVault({ dataDir: target });
    try {
      const client = clientOf(vault);
      const folders = await client.readUserFolders({ login: 'alice' });
      expect(folders.map((folder) => [folder.title, folder.level, folder.accessType])).toEqual([
        ['Team', 1, 'W'],
        ['Staging', 2, 'ND'],
      ]);
      const items = await client.readUserItems({ login: 'alice' });
      expect(
        items.map((item) => [item.label, item.password, item.url, item.path.join(' > ')]).sort(),
      ).toEqual([
        ['cache', 'pw-cache-seeded', 'https://cache.example.com/?a=1&b=2', 'Team > Staging'],
        ['db', 'pw-db-seeded', 'https://db.example.com/?a=1&b=2', 'Team'],
      ]);
      const db = items.find((item) => item.label === 'db')!;
      const [file] = await client.listFiles({ itemId: db.id });
      expect(file).toMatchObject({ name: 'ca.pem' });
      const audit = JSON.stringify(
        await vault.server.vault.adminAs(TEST_OPERATOR).listAudit({ limit: 1000 }),
      );
      expect(audit).not.toContain(KEY);
    } finally {
      await vault.close();
    }
  });
});
