// store_secret while a folder on the file's path is swapped for a symbolic link: the vault holds
// the call (a proxy in front of the real vault server) while the test swaps the folder.
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type HoldingProxy, startHoldingProxy } from '@vaultline/protocol/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpSession, startMcp, tempDir } from './support/mcp.ts';
import { type SeededVault, startSeededVault } from './support/seed.ts';

describe('vaultline mcp store_secret, racing a swapped folder', () => {
  let seeded: SeededVault;
  let proxy: HoldingProxy;
  let home: { dir: string; cleanup: () => Promise<void> };
  let work: { dir: string; cleanup: () => Promise<void> };
  let outside: { dir: string; cleanup: () => Promise<void> };
  let mcp: McpSession;

  beforeAll(async () => {
    seeded = await startSeededVault();
    proxy = await startHoldingProxy(seeded.vault.url);
    [home, work, outside] = await Promise.all([
      tempDir('vaultline-race-home-'),
      tempDir('vaultline-race-work-'),
      tempDir('vaultline-race-outside-'),
    ]);
    mcp = await startMcp({
      env: { VAULTLINE_URL: proxy.url, VAULTLINE_API_KEY: seeded.aliceKey, VAULTLINE_LOGIN: 'alice' },
      cwd: work.dir,
      home: home.dir,
    });
  });
  afterAll(async () => {
    await mcp?.close();
    await proxy?.close();
    await seeded?.vault.close();
    await Promise.all([home?.cleanup(), work?.cleanup(), outside?.cleanup()]);
  });

  it('writes nothing outside the workspace when a folder on the path becomes a link during the call', async () => {
    const secret = `Race-${randomUUID()}-Pw!9`;
    const text = `DB_PASS=${secret}\n`;
    await mkdir(join(work.dir, 'app'));
    await writeFile(join(work.dir, 'app', '.env'), text);
    const { arrived } = proxy.hold((path) => path.includes('/add/item'));
    const call = mcp.call('store_secret', {
      file: 'app/.env',
      line: 1,
      folderId: seeded.folders.dev,
      label: 'raced secret',
    });
    await arrived;
    // The folder moves out of the workspace, and a link to it takes its place.
    await rename(join(work.dir, 'app'), join(outside.dir, 'app'));
    await symlink(join(outside.dir, 'app'), join(work.dir, 'app'));
    proxy.release();
    const { isError, data, text: answer } = await call;
    expect(isError, answer).toBe(true);
    expect(data).toMatchObject({ error: { code: 'changed' } });
    expect(answer).toMatch(
      /The secret is stored as item \d+: replace it by hand with vaultline:\/\/\d+\/password/,
    );
    // Nothing was written outside: the moved file and its folder are as they were.
    expect(await readFile(join(outside.dir, 'app', '.env'), 'utf8')).toBe(text);
    expect(await readdir(join(outside.dir, 'app'))).toEqual(['.env']);
  });
});
