import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createVaultClient, EXIT } from '@vaultline/protocol';
import { startTestVault, type TestVault } from '@vaultline/vault-server/testing';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { MASK } from '../src/constants.ts';
import { runCli, tempHome } from './support/cli.ts';
import { startsTimeout } from './support/timing.ts';

const MANY = 1500;

let vault: TestVault;
let home: { dir: string; cleanup: () => Promise<void> };
let aliceKey: string;
let ids: number[];
const logLines: string[] = [];

beforeAll(async () => {
  vault = await startTestVault({ logLines });
  home = await tempHome();
  await vault.admin.createUser({ login: 'alice' });
  await vault.admin.createRole({ name: 'dev' });
  await vault.admin.assignRole('alice', 'dev');
  const admin = createVaultClient({ baseUrl: vault.url, auth: vault.adminKey });
  const { id: folderId } = await admin.folders.create({ title: 'Many', complexityLevel: 0 });
  await vault.admin.grant('dev', folderId, 'R');
  ids = await vault.admin.addItems(
    Array.from({ length: MANY }, (_, i) => ({
      label: `secret ${i}`,
      password: `Many-Secret-${i}-Qz`,
      description: '',
      folderId: String(folderId),
      login: `user-${i}`,
      email: '',
      url: '',
      tags: '',
      anyoneCanModify: '0',
    })),
  );
  aliceKey = await vault.admin.createKey({ label: 'alice-many', login: 'alice' });
}, 120_000);
afterAll(async () => {
  await vault?.close();
  await home?.cleanup();
});

/** The operations the vault answered since a mark (its request log: one line per request). */
function opsSince(mark: number): string[] {
  return logLines
    .slice(mark)
    .map((line) => JSON.parse(line) as { msg?: string; op?: string; status?: number })
    .filter((entry) => entry.msg === 'request' && entry.op !== undefined)
    .map((entry) => `${entry.op} ${entry.status}`);
}

/** A child that hashes the values it was given, so nothing but a digest is printed. */
const digest = (count: number) => `
  const { createHash } = require('node:crypto');
  const hash = createHash('sha256');
  let set = 0;
  for (let i = 0; i < ${count}; i++) {
    const value = process.env['V' + i];
    if (value !== undefined) set++;
    hash.update((value ?? '') + '\\n');
  }
  console.log(set + ' ' + hash.digest('hex'));
`;

function expectedDigest(count: number): string {
  const hash = createHash('sha256');
  for (let i = 0; i < count; i++) hash.update(`Many-Secret-${i}-Qz\n`);
  return `${count} ${hash.digest('hex')}`;
}

/** The environment of a CI job: alice's key and login. */
const asAlice = () => ({ VAULTLINE_URL: vault.url, VAULTLINE_API_KEY: aliceKey, VAULTLINE_LOGIN: 'alice' });

/** Runs a .env of `count` references in a home of its own (nothing remembered from another test). */
async function runWithEnvFile(count: number) {
  const own = await tempHome();
  onTestFinished(() => own.cleanup());
  const file = join(home.dir, `refs-${count}.env`);
  await writeFile(
    file,
    ids
      .slice(0, count)
      .map((id, i) => `V${i}=vaultline://${id}/password\n`)
      .join(''),
  );
  return runCli(own.dir, ['run', '-f', file, '--', process.execPath, '-e', digest(count)], {
    env: asAlice(),
    timeoutMs: 120_000,
  });
}

describe('vaultline run with many references', () => {
  it(`runs a .env of ${MANY} distinct references: split by the server's id limit, one read each`, async () => {
    const mark = logLines.length;
    const result = await runWithEnvFile(MANY);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${expectedDigest(MANY)}\n`);
    // The server reports at most 1000 ids per call: two reads, each accepted. info/version twice:
    // keyless (who the server is), then with the key (whom it acts as: alice, whose rights the
    // server enforces on every read, so hers are not read).
    expect(opsSince(mark).sort()).toEqual([
      'info/version 200',
      'info/version 200',
      'read/items 200',
      'read/items 200',
    ]);
  }, 180_000);

  it('resolves 10 references with one read of those items, never read/userpw', async () => {
    const mark = logLines.length;
    const result = await runWithEnvFile(10);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${expectedDigest(10)}\n`);
    expect(result.stdout).not.toContain(MASK);
    expect(opsSince(mark).sort()).toEqual(['info/version 200', 'info/version 200', 'read/items 200']);
    // The server writes read audit rows in a batch shortly after its answer: poll for the row (the
    // assertion's last failure is reported when it never comes).
    await vi.waitFor(
      async () => {
        const [row] = await vault.server.vault.db.query<{ target: string }>(
          "SELECT target FROM audit WHERE action = 'read/items' ORDER BY id DESC LIMIT 1",
        );
        expect(row?.target).toBe(`items ${ids.slice(0, 10).join(',')}`);
      },
      { timeout: 5_000, interval: 20 },
    );
  }, 60_000);

  it(
    'remembers the server and the key between commands from the environment alone: one request per read',
    async () => {
      const ci = await tempHome();
      onTestFinished(() => ci.cleanup());
      const read = async () => {
        const mark = logLines.length;
        const result = await runCli(ci.dir, ['read', '--json', `vaultline://${ids[0]}/password`], {
          env: asAlice(),
        });
        expect(result.code, result.stderr).toBe(0);
        expect(JSON.parse(result.stdout)).toMatchObject({ value: 'Many-Secret-0-Qz' });
        return opsSince(mark).sort();
      };
      expect(await read()).toEqual(['info/version 200', 'info/version 200', 'read/items 200']);
      // The next process (an Ansible task, a CI step) passes both answers back: the item alone.
      expect(await read()).toEqual(['read/items 200']);
    },
    startsTimeout(2),
  );

  it(
    "reads the login's rights with a key of no one in particular, whatever another key's answer kept",
    async () => {
      const admin = createVaultClient({ baseUrl: vault.url, auth: vault.adminKey });
      const { id: hiddenFolder } = await admin.folders.create({ title: 'Hidden', complexityLevel: 0 });
      const { id: hidden } = await admin.items.create({
        label: 'hidden',
        password: 'Hidden-Secret-Qz',
        folderId: hiddenFolder,
      });
      const ci = await tempHome();
      onTestFinished(() => ci.cleanup());
      const readAs = async (key: string, reference: string) => {
        const mark = logLines.length;
        const result = await runCli(ci.dir, ['read', reference], {
          env: { ...asAlice(), VAULTLINE_API_KEY: key },
        });
        return { result, ops: opsSince(mark).sort() };
      };
      // alice's key answer is kept in this cache directory; the admin key cannot open it.
      const own = await readAs(aliceKey, `vaultline://${ids[0]}/password`);
      expect(own.result.code, own.result.stderr).toBe(0);
      for (let i = 0; i < 2; i++) {
        const refused = await readAs(vault.adminKey, `vaultline://${hidden}/password`);
        expect(refused.result.code).toBe(EXIT.reference);
        expect(refused.result.stderr).toContain('has no right to read');
        expect(refused.result.stdout).toBe('');
        expect(refused.ops.filter((op) => op.startsWith('read/userfolders'))).toEqual([
          'read/userfolders 200',
        ]);
      }
    },
    startsTimeout(3),
  );
});
