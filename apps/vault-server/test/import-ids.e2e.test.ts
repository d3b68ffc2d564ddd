/**
 * `vaultline-server import` and ids (issue 27.3): a migration keeps the source's folder and item
 * ids where they are free here (all of them in an empty vault), so `read/folder/2`, `update/item/8`
 * and `vaultline://13/password` written for TeamPass name the same things afterwards; the
 * identities move past the ids kept (PGlite and PostgreSQL); where an id is taken, the thing gets
 * another one, and the report prints the mapping and `--map-file` writes it.
 */

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ReplayServer, startReplayServer } from '@vaultline/protocol/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importVault } from '../src/import/import-vault.ts';
import { operatorActor } from '../src/store/actor.ts';
import { startTestVault } from '../src/testing.ts';
import { runCli, tempDirs } from './support/cli.ts';
import { clientOf, expectNoSecrets, STORES } from './support/helpers.ts';
import { vaultForSuite } from './support/vault-for-suite.ts';

const KEY = 'tp-ids-key-0123456789abcdef0123';
const tempDir = tempDirs('vaultline-import-ids-');

let replay: ReplayServer;

beforeAll(async () => {
  replay = await startReplayServer({ apiKey: KEY });
  replay.fileEndpoints = true;
  replay.files.set('500', {
    id: '500',
    itemId: '10',
    name: 'ca.pem',
    type: 'application/x-pem-file',
    bytes: Buffer.from('-----BEGIN CERTIFICATE-----\nids\n-----END CERTIFICATE-----\n'),
  });
});

afterAll(async () => {
  await replay?.close();
});

describe.each(STORES)('an import into an empty vault keeps the source ids (%s)', (store) => {
  const suite = vaultForSuite(store);

  it("keeps TeamPass 2's folder and item ids, and the next adds draw ids past them", async () => {
    const summary = await importVault(suite.vault.server.vault, operatorActor('test', 'import'), {
      from: replay.url,
      apiKey: KEY,
      logins: ['alice'],
      // A TeamPass-compatible source with file endpoints (a fork): asked for.
      attachments: true,
      dryRun: false,
    });
    // Folders 1 and 2, items 10 and 11 (item 12 has no password: skipped); the attachment gets a new id.
    expect(summary.ids.kept).toBe(4);
    expect(summary.ids.changed).toEqual([{ kind: 'file', source: 500, id: expect.any(Number) }]);
    const admin = suite.admin;
    const folders = await admin.readUserFolders({ login: 'alice' });
    expect(folders.map((folder) => [folder.id, folder.title, folder.parentId])).toEqual([
      [1, 'Team', 0],
      [2, 'Staging', 1],
    ]);
    // What a script wrote for TeamPass reads the same things here.
    expect((await admin.readFolders({ ids: [2] })).map((item) => [item.id, item.label])).toEqual([
      [11, 'cache'],
    ]);
    expect((await admin.readItems({ ids: [10, 11] })).map((item) => [item.id, item.password])).toEqual([
      [10, 'pw-db-seeded'],
      [11, 'pw-cache-seeded'],
    ]);
    // The identities moved past the kept ids: new things get fresh ids, no collision.
    const folder = await admin.addFolder({ folder: { title: 'Made here' } });
    expect(folder.id).toBeGreaterThan(2);
    const item = await admin.addItem({
      item: { label: 'made here', password: 'pw-here', folderId: folder.id },
    });
    expect(item.id).toBeGreaterThan(11);
  });
});

describe('an import into a vault whose ids are taken', () => {
  it('gives those things other ids, prints the mapping and writes it with --map-file', async () => {
    const target = await tempDir();
    // This vault already holds folders 1 to 3 and items 1 to 11.
    const vault = await startTestVault({ dataDir: target });
    try {
      const admin = clientOf(vault);
      let folderId = 0;
      for (const title of ['Here 1', 'Here 2', 'Here 3'])
        folderId = (await admin.addFolder({ folder: { title } })).id;
      for (let n = 1; n <= 11; n++)
        await admin.addItem({ item: { label: `here ${n}`, password: `pw-${n}`, folderId } });
    } finally {
      await vault.close();
    }
    const mapFile = join(target, 'id-map.csv');
    const result = await runCli(
      ['import', '--from', replay.url, '--login', 'alice', '--attachments', '--map-file', mapFile],
      {
        VAULTLINE_DATA_DIR: target,
        VAULTLINE_IMPORT_API_KEY: KEY,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expectNoSecrets([result.stdout, result.stderr], [KEY]);
    expect(result.stdout).toMatch(/ids\s+kept 0 source ids/);
    expect(result.stdout).toMatch(/4 got another id: their source id is taken here/);
    const printed = [...result.stdout.matchAll(/^ {4}(folder|item|file) (\d+) → (\d+)$/gm)].map((m) => [
      m[1],
      Number(m[2]),
      Number(m[3]),
    ]);
    expect(printed.map(([kind, source]) => [kind, source])).toEqual([
      ['folder', 1],
      ['folder', 2],
      ['item', 10],
      ['item', 11],
      ['file', 500],
    ]);
    const rows = (await readFile(mapFile, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => line.split(','));
    expect(rows[0]).toEqual(['kind', 'source_id', 'id']);
    expect(rows.slice(1).map(([kind, source, id]) => [kind, Number(source), Number(id)])).toEqual(printed);

    const copy = await startTestVault({ dataDir: target });
    try {
      const admin = clientOf(copy);
      const idOf = (kind: string, source: number) =>
        printed.find(([k, s]) => k === kind && s === source)![2] as number;
      // Each mapped id names what the source id named there.
      const [db] = await admin.readItems({ ids: [idOf('item', 10)] });
      expect([db?.label, db?.password, db?.folderId]).toEqual(['db', 'pw-db-seeded', idOf('folder', 1)]);
      const [cache] = await admin.readFolders({ ids: [idOf('folder', 2)] });
      expect(cache?.label).toBe('cache');
      expect((await admin.listFiles({ itemId: idOf('item', 10) })).map((file) => file.id)).toEqual([
        idOf('file', 500),
      ]);
      // And the source ids still name this vault's own things.
      expect((await admin.readItems({ ids: [10] }))[0]?.label).toBe('here 10');
    } finally {
      await copy.close();
    }
    // A re-run adds nothing; its map file holds what the first run made.
    const again = await runCli(
      ['import', '--from', replay.url, '--login', 'alice', '--attachments', '--map-file', mapFile],
      {
        VAULTLINE_DATA_DIR: target,
        VAULTLINE_IMPORT_API_KEY: KEY,
      },
    );
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/Nothing new to import/);
    expect(
      (await readFile(mapFile, 'utf8'))
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => line.split(',').map((v, i) => (i === 0 ? v : Number(v)))),
    ).toEqual(printed);
  });
});

describe.each(STORES)('an import where kept and renumbered ids interleave (%s)', (store) => {
  const suite = vaultForSuite(store);

  it('works the first time, as its dry run said, and draws no id it does not keep', async () => {
    // Folder 1 and items 1 to 10 are taken here; the source's folder 2 and item 11 are free.
    const admin = suite.admin;
    const here = await admin.addFolder({ folder: { title: 'Here' } });
    expect(here.id).toBe(1);
    for (let n = 1; n <= 10; n++)
      await admin.addItem({ item: { label: `here ${n}`, password: `pw-${n}`, folderId: here.id } });
    const options = { from: replay.url, apiKey: KEY, logins: ['alice'], attachments: false };
    const actor = operatorActor('test', 'import');
    const dry = await importVault(suite.vault.server.vault, actor, { ...options, dryRun: true });
    // Renumbered past every id kept: folder 1 after folder 2, item 10 after item 11.
    const expected = [
      { kind: 'folder', source: 1, id: 3 },
      { kind: 'item', source: 10, id: 12 },
    ];
    expect(dry.ids).toEqual({ kept: 2, changed: expected });
    const done = await importVault(suite.vault.server.vault, actor, { ...options, dryRun: false });
    expect(done.ids).toEqual(dry.ids);
    const folders = await admin.readUserFolders({ login: 'alice' });
    expect(folders.map((folder) => [folder.id, folder.title, folder.parentId])).toEqual([
      [2, 'Staging', 3],
      [3, 'Team', 0],
    ]);
    expect((await admin.readItems({ ids: [11, 12] })).map((item) => [item.id, item.label])).toEqual([
      [11, 'cache'],
      [12, 'db'],
    ]);
    // The identities moved past the ids given, and only past them: none was drawn and lost.
    expect((await admin.addFolder({ folder: { title: 'After' } })).id).toBe(4);
    expect((await admin.addItem({ item: { label: 'after', password: 'pw', folderId: here.id } })).id).toBe(
      13,
    );
  });
});
