/**
 * What an import carries besides the nine values (issue 27.4): TOTP secrets and custom fields from
 * TeamPass 3 (the fake) into a real Vaultline server over HTTP, sealed like passwords; the server
 * then serves one-time codes through read/otp (capability `otp`, so `vaultline://…/otp` resolves),
 * equal to TeamPass's own, only to keys that may read the item, audited without the code. From
 * TeamPass 2 (the replay server) the summary names what it cannot carry, attachments included,
 * without one read/listfiles per item.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createVaultClient, resolveReferences } from '@vaultline/protocol';
import {
  type ReplayServer,
  startReplayServer,
  startTeamPass3Fake,
  type TeamPass3Fake,
} from '@vaultline/protocol/testing';
import { vaultClientOf } from '@vaultline/protocol/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateMasterKey } from '../src/cli/rotate-master-key.ts';
import { importVault } from '../src/import/import-vault.ts';
import type { ImportSummary } from '../src/import/types.ts';
import { operatorActor } from '../src/store/actor.ts';
import { startTestVault } from '../src/testing.ts';
import { clientOf, expectNoSecrets, expectVaultError, TEST_OPERATOR } from './support/helpers.ts';
import { vaultForSuite } from './support/vault-for-suite.ts';

const ALICE = {
  login: 'alice',
  password: 'Al1ce-pass-2026',
  apiKey: 'aliceKeyAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
};
const SECRET_SHA1 = 'JBSWY3DPEHPK3PXP';
const SECRET_SHA256 = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const FIELDS = [
  { id: 1, title: 'Recovery code', type: 'text', masked: 1, value: 'rc-7781-2231' },
  { id: 2, title: 'Account number', type: 'text', masked: 0, value: 'ACC 00042' },
];

describe('an import from TeamPass 3 carries TOTP secrets and custom fields', () => {
  const suite = vaultForSuite('pglite');
  let fake: TeamPass3Fake;
  let summary: ImportSummary;

  beforeAll(async () => {
    fake = await startTeamPass3Fake({
      seed: {
        folders: [{ title: 'Ops' }],
        roles: [{ name: 'Ops', folders: { Ops: 'W' } }],
        users: [{ ...ALICE, roles: ['Ops'] }],
        items: [
          { label: 'github', folder: 'Ops', password: 'pw-github', totp: SECRET_SHA1, fields: FIELDS },
          {
            label: 'bank',
            folder: 'Ops',
            password: 'pw-bank',
            totp: { secret: SECRET_SHA256, algorithm: 'sha256', digits: 8, period: 60 },
          },
          { label: 'plain', folder: 'Ops', password: 'pw-plain' },
        ],
      },
    });
    summary = await importVault(suite.vault.server.vault, operatorActor('test', 'import'), {
      from: fake.url,
      apiKey: ALICE.apiKey,
      password: ALICE.password,
      logins: ['alice'],
      dryRun: false,
    });
    suite.secrets.push(ALICE.password, ALICE.apiKey, SECRET_SHA1, SECRET_SHA256);
  });

  afterAll(async () => {
    await fake?.close();
  });

  /** The fake's code and the server's for one item, read in one period (tried again across a boundary). */
  async function codesOf(id: number): Promise<[string, string]> {
    const teampass = createVaultClient({
      baseUrl: fake.url,
      auth: { login: ALICE.login, password: ALICE.password, apiKey: ALICE.apiKey },
    });
    try {
      for (let attempt = 0; ; attempt++) {
        fake.clock.set(Date.now());
        const before = await teampass.items.otp(id);
        const ours = await suite.admin.readOtp({ id });
        const after = await teampass.items.otp(id);
        if (before.code === after.code || attempt >= 3) return [before.code, ours.code];
      }
    } finally {
      await teampass.dispose();
    }
  }

  it('keeps the ids, and the codes are TeamPass’s own', async () => {
    expect(summary.carried).toEqual({ otp: 2, fields: 1 });
    expect(summary.ids).toEqual({ kept: 4, changed: [] });
    expect(await suite.admin.capabilities()).toMatchObject({ otp: true });
    const byLabel = new Map(fake.items().map((item) => [item.password, item.id]));
    for (const password of ['pw-github', 'pw-bank']) {
      const id = byLabel.get(password)!;
      const [item] = await suite.admin.readItems({ ids: [id] });
      expect([item?.id, item?.password, item?.otp]).toEqual([id, password, true]);
      const [theirs, ours] = await codesOf(id);
      expect(ours).toBe(theirs);
    }
    const bank = await suite.admin.readOtp({ id: byLabel.get('pw-bank')! });
    expect(bank).toMatchObject({ digits: 8, period: 60 });
    expect(bank.code).toMatch(/^[0-9]{8}$/);
    // An item without a secret has no code.
    const plain = byLabel.get('pw-plain')!;
    expect((await suite.admin.readItems({ ids: [plain] }))[0]?.otp).toBeUndefined();
    await expectVaultError(suite.admin.readOtp({ id: plain }), 'not_found');
    // The stored secret is sealed: its text is nowhere in the table.
    const rows = await suite.vault.server.vault.db.query<{ totp: Uint8Array }>(
      'SELECT totp FROM items WHERE totp IS NOT NULL',
    );
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(Buffer.from(row.totp).toString('latin1')).not.toContain(SECRET_SHA1);
  });

  it('keeps the custom fields, and serves them with the item', async () => {
    const id = fake.items().find((item) => item.password === 'pw-github')!.id;
    const [item] = await suite.admin.readItems({ ids: [id] });
    expect(item?.fields).toEqual(
      FIELDS.map((field) => ({
        title: field.title,
        type: field.type,
        masked: field.masked === 1,
        value: field.value,
      })),
    );
    const [plain] = await suite.admin.readItems({
      ids: [fake.items().find((i) => i.password === 'pw-plain')!.id],
    });
    expect(plain?.fields).toBeUndefined();
    expect(plain?.raw).not.toHaveProperty('fields');
  });

  it('re-seals TOTP secrets and custom fields when the master key rotates', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'vaultline-otp-rotate-'));
    try {
      const vault = await startTestVault({ dataDir });
      await importVault(vault.server.vault, operatorActor('test', 'import'), {
        from: fake.url,
        apiKey: ALICE.apiKey,
        password: ALICE.password,
        logins: ['alice'],
        dryRun: false,
      });
      await vault.close();
      const result = await rotateMasterKey(TEST_OPERATOR, {
        dataDir,
        databaseUrl: undefined,
        masterKey: undefined,
        cacheTtlMs: 0,
      });
      expect(result.items).toBe(3);
      const reopened = await startTestVault({ dataDir });
      try {
        const id = fake.items().find((item) => item.password === 'pw-github')!.id;
        const client = clientOf(reopened);
        expect((await client.readItems({ ids: [id] }))[0]?.fields?.map((field) => field.value)).toEqual(
          FIELDS.map((field) => field.value),
        );
        expect((await client.readOtp({ id })).code).toMatch(/^[0-9]{6}$/);
      } finally {
        await reopened.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('resolves vaultline://<id>/otp on the Vaultline server', async () => {
    const id = fake.items().find((item) => item.password === 'pw-github')!.id;
    // The suite holds a wire client; the core's helpers read the domain client over it.
    const [resolved] = await resolveReferences(vaultClientOf(suite.admin), [`vaultline://${id}/otp`]);
    expect(resolved).toMatchObject({ ok: true });
    expect((resolved as { value: string }).value).toMatch(/^[0-9]{6}$/);
  });

  it('serves a code only to a key that may read the item, and audits it without the code', async () => {
    const id = fake.items().find((item) => item.password === 'pw-github')!.id;
    const folderId = (await suite.admin.readItems({ ids: [id] }))[0]!.folderId;
    const admin = suite.vault.admin;
    await admin.createUser({ login: 'outsider' });
    await admin.createUser({ login: 'reader' });
    await admin.createRole({ name: 'readers' });
    await admin.assignRole('reader', 'readers');
    await admin.grant('readers', folderId, 'R');
    const outsiderKey = await admin.createKey({ label: 'outsider', login: 'outsider' });
    const readerKey = await admin.createKey({ label: 'reader', login: 'reader' });
    suite.secrets.push(outsiderKey, readerKey);
    await expectVaultError(clientOf(suite.vault, outsiderKey).readOtp({ id }), 'not_found');
    const code = await clientOf(suite.vault, readerKey).readOtp({ id });
    expect(code.code).toMatch(/^[0-9]{6}$/);
    const deadline = Date.now() + 10_000;
    let audit: Awaited<ReturnType<typeof listAudit>> = [];
    async function listAudit() {
      return (await suite.vault.server.vault.adminAs(TEST_OPERATOR).listAudit({ limit: 1000 })).filter(
        (entry) => entry.action === 'read/otp' && ['outsider', 'reader'].includes(entry.keyLabel),
      );
    }
    while (audit.length < 2 && Date.now() < deadline) {
      audit = await listAudit();
      if (audit.length < 2) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(audit.map((entry) => [entry.keyLabel, entry.target, entry.outcome]).sort()).toEqual(
      [
        // A refused read is recorded as the server records every failure: no target.
        ['outsider', '', 'not_found'],
        ['reader', `item ${id}`, 'ok'],
      ].sort(),
    );
    expect(JSON.stringify(audit)).not.toContain(code.code);
  });
});

describe('an import from TeamPass 2 names what it cannot carry', () => {
  const suite = vaultForSuite('pglite');
  const KEY = 'tp2-otp-key-0123456789abcdef0123';
  let replay: ReplayServer;

  beforeAll(async () => {
    replay = await startReplayServer({ apiKey: KEY });
  });

  afterAll(async () => {
    await replay?.close();
  });

  it('says attachments, TOTP secrets and custom fields stay in TeamPass, without one read/listfiles per item', async () => {
    replay.requests.length = 0;
    const summary = await importVault(suite.vault.server.vault, operatorActor('test', 'import'), {
      from: replay.url,
      apiKey: KEY,
      logins: ['alice'],
      dryRun: false,
    });
    expect(summary.items.added).toBe(2);
    expect(summary.ids).toEqual({ kept: 4, changed: [] });
    expect(summary.skipped).toContainEqual({
      what: 'TOTP secrets and custom fields',
      reason: "TeamPass 2's API does not send them: any its items hold stay there",
    });
    expect(summary.skipped.find((entry) => entry.what === 'attachments')?.reason).toMatch(
      /does not say it has file endpoints .* run again with --attachments/,
    );
    expect(replay.requests.filter((request) => request.url.includes('/read/listfiles/'))).toEqual([]);
    expect((await suite.admin.readItems({ ids: [10, 11] })).map((item) => item.label)).toEqual([
      'db',
      'cache',
    ]);
    expectNoSecrets([JSON.stringify(summary)], [KEY]);
  });
});
