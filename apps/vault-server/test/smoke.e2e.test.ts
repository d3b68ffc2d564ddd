import { createVaultClient } from '@vaultline/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestVault, type TestVault } from '../src/testing.ts';

// Through the client apps use (`createVaultClient`, in the domain's words), not the wire client
// the other suites call the operations by name with.
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
    await using client = createVaultClient({ baseUrl: vault.url, auth: vault.adminKey });
    const folder = await client.folders.create({ title: 'Smoke', complexityLevel: 50 });
    const added = await client.items.create({
      label: 'smoke item',
      password: 'pässwörd/+;',
      folderId: folder.id,
      login: 'me',
    });
    const [item] = await client.items.getMany([added.id]);
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
    await using client = createVaultClient({
      baseUrl: vault.url,
      auth: { apiKey: vault.adminKey, login: 'alice' },
    });
    const folders = await client.folders.list();
    expect(folders.map((f) => f.title).sort()).toEqual(
      ['CI', 'Databases', 'Engineering', 'Shared', String(demo.users.alice)].sort(),
    );
    const files = await client.files.list(demo.items.postgresProd!);
    expect(files).toHaveLength(1);
    const download = await client.files.download(files[0]!.id);
    expect(new TextDecoder().decode(download.bytes)).toContain('BEGIN CERTIFICATE');
    expect(download.fileName).toBe('db-ca.pem');
    const found = await client.items.search('postgresql', { folderIds: [demo.folders.databases!] });
    expect(found.items.map((i) => i.label).sort()).toEqual(['PostgreSQL production', 'PostgreSQL staging']);
    // Without folders named: every folder alice may read, her personal one among them.
    const mine = await client.items.search('alice mail');
    expect(mine.items.map((i) => i.label)).toEqual(['Alice personal mail']);
  });
});
