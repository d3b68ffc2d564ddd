import { createVaultClient } from '@vaultline/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestVault, type TestVault } from '../src/testing.ts';

describe('vault server smoke', () => {
  let vault: TestVault;
  const logLines: string[] = [];
  beforeAll(async () => {
    vault = await startTestVault({ logLines });
  });
  afterAll(async () => {
    await vault?.close();
  });

  it('adds a folder and an item and reads them back through the protocol client', async () => {
    const client = createVaultClient({ baseUrl: vault.url, apiKey: vault.adminKey });
    const folder = await client.addFolder({ folder: { title: 'Smoke', complexityLevel: 50 } });
    const added = await client.addItem({
      item: { label: 'smoke item', password: 'pässwörd/+;', folderId: folder.id, login: 'me' },
    });
    const [item] = await client.readItems({ ids: [added.id] });
    expect(item).toMatchObject({
      id: added.id,
      label: 'smoke item',
      password: 'pässwörd/+;',
      folderId: folder.id,
      login: 'me',
      path: ['Smoke'],
    });
  });

  it('seeds the demo vault', async () => {
    const demo = await vault.seedDemo();
    const client = createVaultClient({ baseUrl: vault.url, apiKey: vault.adminKey });
    const folders = await client.readUserFolders({ login: 'alice' });
    expect(folders.map((f) => f.title).sort()).toEqual(
      ['CI', 'Databases', 'Engineering', 'Shared', String(demo.users.alice)].sort(),
    );
    const files = await client.listFiles({ itemId: demo.items.postgresProd! });
    expect(files).toHaveLength(1);
    const download = await client.downloadFile({ id: files[0]!.id });
    expect(new TextDecoder().decode(download.bytes)).toContain('BEGIN CERTIFICATE');
    expect(download.fileName).toBe('db-ca.pem');
    const found = await client.findItems({ folderIds: [demo.folders.databases!], query: 'postgresql' });
    expect(found.map((i) => i.label).sort()).toEqual(['PostgreSQL production', 'PostgreSQL staging']);
  });
});
