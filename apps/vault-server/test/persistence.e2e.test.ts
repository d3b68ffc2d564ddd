import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { rotateMasterKey } from '../src/cli/rotate-master-key.ts';
import { generateMasterKey } from '../src/crypto/master-key.ts';
import { startTestVault } from '../src/testing.ts';
import { clientOf, expectNoSecrets, TEST_OPERATOR } from './support/helpers.ts';

const dirs: string[] = [];
const logLines: string[] = [];
const secrets: string[] = [];

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'vaultline-data-'));
  dirs.push(dir);
  return dir;
}

afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  expectNoSecrets(logLines, secrets);
});

describe('vault server persistence', () => {
  it('keeps items, files, keys and rights across a restart on the same data directory', async () => {
    const dataDir = await tempDir();
    const first = await startTestVault({ dataDir, logLines });
    secrets.push(first.adminKey);
    const client = clientOf(first);
    const folder = await client.addFolder({ folder: { title: 'Kept' } });
    const { id } = await client.addItem({
      item: { label: 'kept item', password: 'kept-password-1', folderId: folder.id },
    });
    secrets.push('kept-password-1');
    const file = await client.addFile({
      itemId: id,
      file: new TextEncoder().encode('kept file'),
      fileName: 'k.txt',
    });
    await first.admin.createUser({ login: 'keeper' });
    await first.admin.createRole({ name: 'keepers' });
    await first.admin.assignRole('keeper', 'keepers');
    await first.admin.grant('keepers', folder.id, 'R');
    await expect(startTestVault({ dataDir })).rejects.toThrow(/already open/);
    await first.close();
    expect((await stat(join(dataDir, 'master.key'))).mode & 0o777).toBe(0o600);

    const second = await startTestVault({ dataDir, logLines });
    try {
      const again = clientOf(second, first.adminKey);
      expect(await again.getItem(id)).toMatchObject({ label: 'kept item', password: 'kept-password-1' });
      expect(new TextDecoder().decode((await again.downloadFile({ id: file.id! })).bytes)).toBe('kept file');
      expect((await again.readUserFolders({ login: 'keeper' })).map((f) => f.accessType)).toEqual(['R']);
    } finally {
      await second.close();
    }
  });

  it('rotates the master key: everything stays readable, and the old key no longer opens the vault', async () => {
    const dataDir = await tempDir();
    const vault = await startTestVault({ dataDir, logLines });
    secrets.push(vault.adminKey, 'rotate-password-1');
    const client = clientOf(vault);
    const folder = await client.addFolder({ folder: { title: 'Rotate' } });
    const { id } = await client.addItem({
      item: { label: 'rotating', password: 'rotate-password-1', folderId: folder.id },
    });
    const file = await client.addFile({
      itemId: id,
      file: new Uint8Array([1, 2, 3, 250]),
      fileName: 'r.bin',
    });
    await vault.close();
    const oldKey = (await readFile(join(dataDir, 'master.key'), 'utf8')).trim();

    const result = await rotateMasterKey(TEST_OPERATOR, {
      dataDir,
      databaseUrl: undefined,
      masterKey: undefined,
      cacheTtlMs: 0,
    });
    expect(result).toEqual({ newKey: undefined, items: 1, files: 1, accounts: 0 });
    const newKey = (await readFile(join(dataDir, 'master.key'), 'utf8')).trim();
    expect(newKey).not.toBe(oldKey);
    expect((await stat(join(dataDir, 'master.key'))).mode & 0o777).toBe(0o600);

    const reopened = await startTestVault({ dataDir, logLines });
    try {
      const again = clientOf(reopened);
      expect((await again.getItem(id)).password).toBe('rotate-password-1');
      expect([...(await again.downloadFile({ id: file.id! })).bytes]).toEqual([1, 2, 3, 250]);
      const [rotation] = await reopened.server.vault
        .adminAs(TEST_OPERATOR)
        .listAudit({ limit: 1, action: 'admin/rotate-master-key' });
      expect(rotation).toMatchObject({
        actor: 'test',
        address: 'test',
        target: '1 passwords, 1 attachments',
      });
    } finally {
      await reopened.close();
    }
    await expect(startTestVault({ dataDir, masterKey: oldKey })).rejects.toThrow(/master key does not match/);
  });

  it('rotates a master key given by the environment and hands back the new one', async () => {
    const dataDir = await tempDir();
    const k1 = generateMasterKey();
    const vault = await startTestVault({ dataDir, masterKey: k1, logLines });
    secrets.push(vault.adminKey);
    const client = clientOf(vault);
    const folder = await client.addFolder({ folder: { title: 'Env' } });
    const { id } = await client.addItem({
      item: { label: 'env item', password: 'env-password-1', folderId: folder.id },
    });
    await vault.close();
    const result = await rotateMasterKey(TEST_OPERATOR, {
      dataDir,
      databaseUrl: undefined,
      masterKey: k1,
      cacheTtlMs: 0,
    });
    expect(result.newKey).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    await expect(startTestVault({ dataDir, masterKey: k1 })).rejects.toThrow(/master key does not match/);
    const reopened = await startTestVault({ dataDir, masterKey: result.newKey!, logLines });
    try {
      expect((await clientOf(reopened).getItem(id)).password).toBe('env-password-1');
    } finally {
      await reopened.close();
    }
    await expect(startTestVault({ dataDir, masterKey: 'short' })).rejects.toThrow(/32-byte key/);
  });

  it('drops a leftover master.key.next from a rotation that never committed', async () => {
    const dataDir = await tempDir();
    const vault = await startTestVault({ dataDir, logLines });
    secrets.push(vault.adminKey);
    await vault.close();
    await writeFile(join(dataDir, 'master.key.next'), `${generateMasterKey()}\n`, { mode: 0o600 });
    const reopened = await startTestVault({ dataDir, logLines });
    await reopened.close();
    await expect(stat(join(dataDir, 'master.key.next'))).rejects.toThrow(/ENOENT/);
  });

  it('keeps every acknowledged write, and no half-written item, when the server is killed with SIGKILL', async () => {
    const dataDir = await tempDir();
    const child = spawn(process.execPath, [join(import.meta.dirname, 'support/server-child.ts'), dataDir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const first = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', () => reject(new Error('the server child exited before listening')));
    });
    const { url, key } = JSON.parse(first) as { url: string; key: string };
    secrets.push(key);
    const client = clientOf({ url, adminKey: key } as never);
    const folder = await client.addFolder({ folder: { title: 'Durable' } });
    const sent = new Map<string, string>();
    const acknowledged: { id: number; label: string; password: string }[] = [];
    let n = 0;
    let killed = false;
    const writer = async () => {
      while (!killed) {
        const label = `durable ${n++}`;
        const password = `durable-password-${n}-${Math.random().toString(36).slice(2)}`;
        sent.set(label, password);
        try {
          const { id } = await client.addItem({
            item: { label, password, folderId: folder.id, description: 'x'.repeat(2_000) },
          });
          acknowledged.push({ id, label, password });
        } catch {
          return;
        }
      }
    };
    const writers = Array.from({ length: 4 }, writer);
    const deadline = Date.now() + 10_000;
    while (acknowledged.length < 150 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 5));
    child.kill('SIGKILL');
    killed = true;
    await Promise.all(writers);
    await exited;
    expect(acknowledged.length).toBeGreaterThanOrEqual(20);

    const reopened = await startTestVault({ dataDir, logLines });
    try {
      const items = await clientOf(reopened).readFolders({ ids: [folder.id] });
      const byId = new Map(items.map((item) => [item.id, item]));
      for (const ack of acknowledged) {
        expect(byId.get(ack.id), `acknowledged item ${ack.id}`).toMatchObject({
          label: ack.label,
          password: ack.password,
        });
      }
      for (const item of items) {
        expect(sent.get(item.label), `item ${item.id} was written whole`).toBe(item.password);
        expect(item.description).toBe('x'.repeat(2_000));
      }
      expect(items.length).toBeLessThanOrEqual(sent.size);
      // The audit record of a write is committed with the write: none is missing after the kill.
      const audited = new Set(
        (
          await reopened.server.vault.adminAs(TEST_OPERATOR).listAudit({ limit: 100_000, action: 'add/item' })
        ).map((entry) => entry.target),
      );
      for (const item of items) expect(audited.has(`item ${item.id}`), `audit of item ${item.id}`).toBe(true);
    } finally {
      await reopened.close();
    }
  });
});
