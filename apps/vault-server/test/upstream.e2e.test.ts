/**
 * Upstream mode: the real server over HTTP in front of the TeamPass 3 fake (and the TeamPass 2
 * fake), on PGlite. Machine keys bound to an upstream account, cut to a folder scope, read-only
 * unless asked, with an expiry; one upstream session per account; the upstream's failures answered
 * as the server's own (502/503), never 500; no upstream credential, token or item value in a log
 * line, error or audit row.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createVaultClient } from '@vaultline/protocol';
import { runConformance } from '@vaultline/protocol/conformance';
import {
  type ReplayServer,
  startReplayServer,
  startTeamPass3Fake,
  type TeamPass3Fake,
} from '@vaultline/protocol/testing';
import { encodeItemValues } from '@vaultline/protocol/wire';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { reencryptAccounts } from '../src/store/upstream-accounts.ts';
import { startTestVault, type TestVault } from '../src/testing.ts';
import type { VaultAdmin } from '../src/vault.ts';
import {
  expectJsonError,
  expectNoSecrets,
  rawRequest,
  setByBeforeAll,
  TEST_OPERATOR,
} from './support/helpers.ts';

const ALICE = {
  login: 'alice',
  password: 'Alice-Upstream-Pw-9#',
  apiKey: 'aliceUpstreamApiKey0123456789abcdefghij',
};
const PASSWORDS = {
  prod: 'Pg-Prod-Secret-77!',
  token: 'tok_live_upstream_42',
  wiki: 'Wiki-Shared-Secret-5',
  ops: 'Ops-Hidden-Secret-3',
  entity: 'Entity-Secret-&amp;-6',
};
/** A label full of what TeamPass 3 stores HTML-escaped. */
const ENTITY_LABEL = `Tom & Jerry <db> "quoted" O'Brien 🦄 café`;

/** GET under the API with a key in the header; the body parsed. */
async function api(vault: TestVault, key: string, path: string) {
  const answer = await rawRequest(vault.url, `/api/index.php${path}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  let json: unknown;
  try {
    json = JSON.parse(answer.body);
  } catch {
    json = answer.body; // delete/item answers the text OK
  }
  return { ...answer, json };
}

const ids = (body: unknown) => (body as { id: string }[]).map((item) => Number(item.id));

function newItem(label: string, folderId: number, password: string): string {
  return encodeItemValues({ label, password, folderId, description: '', login: 'ci' });
}

describe('upstream mode in front of TeamPass 3', () => {
  let fake: TeamPass3Fake | undefined;
  let vault: TestVault | undefined;
  const logLines: string[] = [];
  const keys: Record<string, string> = {};
  const get = () => ({
    fake: setByBeforeAll(fake, 'the fake'),
    vault: setByBeforeAll(vault, 'the vault'),
  });
  const admin = (): VaultAdmin => get().vault.server.vault.adminAs(TEST_OPERATOR);

  beforeAll(async () => {
    fake = await startTeamPass3Fake({
      seed: {
        folders: [
          { id: 1, title: 'Engineering', children: [{ id: 2, title: 'Databases' }] },
          { id: 3, title: 'Shared' },
          { id: 4, title: 'Ops' },
        ],
        roles: [{ name: 'Devs', folders: { Engineering: 'W', 'Engineering/Databases': 'W', Shared: 'R' } }],
        users: [{ ...ALICE, roles: ['Devs'], canCreateRootFolder: true }],
        items: [
          {
            id: 1,
            label: 'prod db',
            folder: 'Engineering/Databases',
            password: PASSWORDS.prod,
            login: 'postgres',
          },
          { id: 2, label: 'api token', folder: 'Engineering', password: PASSWORDS.token },
          { id: 3, label: 'shared wiki', folder: 'Shared', password: PASSWORDS.wiki },
          { id: 4, label: 'ops secret', folder: 'Ops', password: PASSWORDS.ops },
          {
            id: 5,
            label: ENTITY_LABEL,
            folder: 'Shared',
            password: PASSWORDS.entity,
            login: 'müller & <co>',
          },
          { id: 6, label: 'github 2fa', folder: 'Shared', password: 'Github-Pw-6', totp: 'JBSWY3DPEHPK3PXP' },
        ],
      },
    });
    vault = await startTestVault({ upstreamUrl: fake.url, logLines });
    const registered = await admin().addUpstreamAccount({
      name: 'ci',
      url: fake.url,
      login: ALICE.login,
      method: 'password',
      secrets: { password: ALICE.password, apiKey: ALICE.apiKey },
    });
    expect(registered.dialect).toBe('teampass3');
    keys.all = await admin().createKey({ label: 'all', upstream: { account: 'ci', folders: 'all' } });
    keys.db = await admin().createKey({ label: 'db-only', upstream: { account: 'ci', folders: [2] } });
    keys.eng = await admin().createKey({
      label: 'eng-writer',
      upstream: { account: 'ci', folders: [1], subfolders: true, write: true },
    });
  });

  afterAll(async () => {
    await vault?.close();
    await fake?.close();
    const secrets = [ALICE.password, ALICE.apiKey, ...Object.values(PASSWORDS), ...Object.values(keys)];
    secrets.push('Github-Pw-6', 'JBSWY3DPEHPK3PXP');
    secrets.push('Script-Pw-9', 'Deploy-Pw-Added-8');
    secrets.push(...(fake?.tokens() ?? []));
    expectNoSecrets(logLines, secrets);
  });

  it('answers TeamPass items with their own ids, cut to what the account may see', async () => {
    const { vault } = get();
    const answer = await api(vault, keys.all!, '/read/items/1;2;3;4;999');
    expect(answer.status).toBe(200);
    // One sign-in verified the account at `upstream add`; the server's session is the second.
    expect(get().fake.signIns('alice')).toBe(2);
    expect(ids(answer.json)).toEqual([1, 2, 3]);
    const prod = (answer.json as { id: string; pw: string; folder_id: string; path: string }[])[0]!;
    expect(prod).toMatchObject({ pw: PASSWORDS.prod, folder_id: '2', path: 'Engineering > Databases' });
  });

  it('passes labels through as people wrote them', async () => {
    const { vault } = get();
    const [item] = (await api(vault, keys.all!, '/read/items/5')).json as {
      label: string;
      login: string;
      pw: string;
    }[];
    expect(item).toMatchObject({ label: ENTITY_LABEL, login: 'müller & <co>', pw: PASSWORDS.entity });
  });

  it('says what the upstream lacks: info/version without files or word search, 501 unsupported for attachments', async () => {
    const { vault, fake } = get();
    const info = JSON.parse((await rawRequest(vault.url, '/api/index.php/info/version')).body) as {
      features: string[];
    };
    expect(info.features).not.toContain('files');
    expect(info.features).not.toContain('word-search');
    const capabilities = await createVaultClient({ baseUrl: vault.url, auth: keys.all! }).capabilities();
    expect(capabilities.files).toBe(false);
    for (const path of ['/read/listfiles/1', '/read/files/1']) {
      const body = expectJsonError(await api(vault, keys.all!, path), 501, 'unsupported');
      expect(body.err).toMatch(/attachments/i);
    }
    const sent = fake.requests.length;
    const generated = await api(vault, keys.db!, '/new_password/20;1;1;1;0;1;0');
    expect(generated.status).toBe(200);
    expect((generated.json as { password: string }).password).toHaveLength(20);
    expect(fake.requests.length).toBe(sent);
  });

  it('refuses 10,000 ids and malformed ids before anything is sent upstream', async () => {
    const { vault, fake } = get();
    const sent = fake.requests.length;
    const many = Array.from({ length: 10_000 }, (_, i) => i + 1).join(';');
    const tooMany = await api(vault, keys.all!, `/read/items/${many}`);
    expect([400, 414]).toContain(tooMany.status);
    const long = 'a'.repeat(1_000);
    for (const path of [
      '/read/items/1;abc',
      '/read/items/+1',
      '/read/folder/1.0',
      '/find/item/x/prod',
      `/find/item/1/${long}`,
      `/read/userpw/${long}`,
      '/read/userfolders/%00',
    ]) {
      expect((await api(vault, keys.all!, path)).status).toBe(400);
    }
    expect(fake.requests.length).toBe(sent);
  });

  it('signs in again once when TeamPass 3 lets the session token expire', async () => {
    const { vault, fake } = get();
    expect((await api(vault, keys.all!, '/read/items/1')).status).toBe(200);
    const before = fake.signIns('alice');
    fake.clock.advance((fake.settings.tokenDurationMinutes + 1) * 60_000);
    expect((await api(vault, keys.all!, '/read/items/1')).status).toBe(200);
    expect(fake.signIns('alice')).toBe(before + 1);
  });

  it('serves a TeamPass 2 script on a key of the teampass profile', async () => {
    const { vault } = get();
    const key = await admin().createKey({
      label: 'tp2-script',
      profile: 'teampass',
      upstream: { account: 'ci', folders: [1], subfolders: true, write: true },
    });
    keys.script = key;
    const read = await rawRequest(vault.url, `/api/index.php/read/items/1;2?apikey=${key}`);
    expect(read.status).toBe(200);
    expect(ids(JSON.parse(read.body))).toEqual([1, 2]);
    const version = await rawRequest(vault.url, `/api/index.php/info/version?apikey=${key}`);
    expect(JSON.parse(version.body)).toEqual({ 'api-version': '2.1.5' });
    const added = await rawRequest(
      vault.url,
      `/api/index.php/add/item/${newItem('script item', 1, 'Script-Pw-9')}?apikey=${key}`,
    );
    expect(JSON.parse(added.body)).toMatchObject({ status: 'item added' });
    const id = (JSON.parse(added.body) as { new_item_id: string }).new_item_id;
    const deleted = await rawRequest(vault.url, `/api/index.php/delete/item/${id}?apikey=${key}`);
    expect(JSON.parse(deleted.body)).toEqual({ status: 'OK' });
  });

  it('passes the conformance suite with a writable all-folders key (attachments reported absent)', async () => {
    const { vault } = get();
    const key = await admin().createKey({
      label: 'conformance',
      upstream: { account: 'ci', folders: 'all', write: true },
    });
    keys.conformance = key;
    const report = await runConformance({ baseUrl: vault.url, apiKey: key, login: 'alice', files: false });
    const failed = report.results.filter((result) => result.ok !== true);
    expect(failed.map((result) => [result.operation, result.detail])).toEqual([
      ...['add/file', 'read/listfiles', 'read/files'].map((operation) => [
        operation,
        'not run (file operations disabled)',
      ]),
    ]);
  });

  it('serves read/otp as the TeamPass 3 account computes it, inside the key scope only, never cached', async () => {
    const { vault, fake } = get();
    const info = JSON.parse((await rawRequest(vault.url, '/api/index.php/info/version')).body) as {
      features: string[];
    };
    expect(info.features).toContain('otp');
    const capabilities = await createVaultClient({ baseUrl: vault.url, auth: keys.all! }).capabilities();
    expect(capabilities.otp).toBe(true);
    const direct = createVaultClient({
      baseUrl: fake.url,
      auth: { login: ALICE.login, password: ALICE.password, apiKey: ALICE.apiKey },
    });
    // The code turns over every 30 s: read it directly before and after; one of them matches.
    let matched = false;
    for (let attempt = 0; attempt < 3 && !matched; attempt++) {
      const before = (await direct.items.otp(6)).code;
      const answer = await api(vault, keys.all!, '/read/otp/6');
      expect(answer.status).toBe(200);
      const after = (await direct.items.otp(6)).code;
      const otp = answer.json as Record<string, string>;
      expect(otp).toMatchObject({ item_id: '6', period: '30', digits: '6' });
      expect(otp.code).toMatch(/^\d{6}$/);
      expect(Number(otp.expires_in)).toBeGreaterThan(0);
      expect(Number(otp.expires_in)).toBeLessThanOrEqual(30);
      expect(Object.keys(otp).sort()).toEqual(['code', 'digits', 'expires_in', 'item_id', 'period']);
      if (before === after) {
        expect(otp.code).toBe(before);
        matched = true;
      }
    }
    expect(matched).toBe(true);
    // Never cached: a new code is read once the old one has turned over.
    const first = (await api(vault, keys.all!, '/read/otp/6')).json as { code: string };
    fake.clock.advance(30_000);
    const later = (await api(vault, keys.all!, '/read/otp/6')).json as { code: string };
    expect(later.code).toBe((await direct.items.otp(6)).code);
    expect(later.code).not.toBe(first.code);
    // Outside the scope (item 6 lies in Shared, the key reaches Databases) as for an unknown id.
    const outside = expectJsonError(await api(vault, keys.db!, '/read/otp/6'), 404, 'not_found');
    const unknown = expectJsonError(await api(vault, keys.db!, '/read/otp/999'), 404, 'not_found');
    expect(outside.err).toBe(unknown.err.replace('999', '6'));
    // An item without a TOTP secret is not found either, as TeamPass 3 says.
    expect((await api(vault, keys.all!, '/read/otp/3')).status).toBe(404);
    // Audited with the item id only (the audit is written after the answer).
    const deadline = Date.now() + 10_000;
    let audit: Awaited<ReturnType<VaultAdmin['listAudit']>> = [];
    while (Date.now() < deadline) {
      audit = (await admin().listAudit({ limit: 1000, action: 'read/otp' })).filter(
        (entry) => entry.keyLabel === 'all' && entry.outcome === 'ok',
      );
      if (audit.reduce((sum, entry) => sum + entry.count, 0) >= 3) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Repeated reads of one item by one key are kept as one row with a count.
    expect(audit.reduce((sum, entry) => sum + entry.count, 0)).toBeGreaterThanOrEqual(3);
    expect(new Set(audit.map((entry) => entry.target))).toEqual(new Set(['item 6']));
    expect(JSON.stringify(audit)).not.toContain(first.code);
    expect(JSON.stringify(audit)).not.toContain(later.code);
  });

  it('answers outside a key scope as it answers what does not exist: by id, by folder, by find', async () => {
    const { vault } = get();
    expect(ids((await api(vault, keys.db!, '/read/items/1;2;3')).json)).toEqual([1]);
    expect((await api(vault, keys.db!, '/read/items/3')).json).toEqual(
      (await api(vault, keys.db!, '/read/items/999')).json,
    );
    expect((await api(vault, keys.db!, '/read/folder/3')).json).toEqual([]);
    expect((await api(vault, keys.db!, '/read/folder/1;2')).json).toHaveLength(1);
    expect((await api(vault, keys.db!, '/find/item/3/wiki')).json).toEqual([]);
    expect(ids((await api(vault, keys.db!, '/find/item/1;2;3/prod')).json)).toEqual([1]);
    const folders = (await api(vault, keys.db!, '/read/userfolders/alice')).json as Record<string, unknown>;
    expect(Object.keys(folders)).toEqual(['2']);
    const items = (await api(vault, keys.db!, '/read/userpw/alice')).json as Record<string, unknown>;
    expect(Object.keys(items)).toEqual(['1']);
  });

  it('takes folders by path into a scope (TeamPass 3), and refuses a path that names none', async () => {
    const { vault } = get();
    const byPath = await admin().createKey({
      label: 'by-path',
      upstream: { account: 'ci', folders: [], paths: ['Engineering/Databases'] },
    });
    keys.byPath = byPath;
    expect(ids((await api(vault, byPath, '/read/items/1;2;3')).json)).toEqual([1]);
    expect(ids((await api(vault, byPath, '/find/item/1;2;3/e')).json).every((id) => id === 1)).toBe(true);
    await expect(
      admin().createKey({
        label: 'no-such-path',
        upstream: { account: 'ci', folders: [], paths: ['Engineering/Nope'] },
      }),
    ).rejects.toThrow(/No folder at the path "Engineering\/Nope"/);
    await expect(
      admin().createKey({
        label: 'bad-path',
        upstream: { account: 'ci', folders: [], paths: ['Engineering//x'] },
      }),
    ).rejects.toThrow(/titles joined by "\/"/);
  });

  it('takes subfolders into a scope when asked', async () => {
    const { vault } = get();
    expect(ids((await api(vault, keys.eng!, '/read/folder/1;2;3')).json)).toEqual([1, 2]);
  });

  it('refuses writes with a read-only key, and outside the scope answers as for what does not exist', async () => {
    const { vault, fake } = get();
    const before = fake.items().length;
    expectJsonError(
      await api(vault, keys.db!, `/add/item/${newItem('ro try', 2, 'Ro-Pw-1')}`),
      403,
      'forbidden',
    );
    const outside = expectJsonError(await api(vault, keys.eng!, `/delete/item/3`), 404, 'not_found');
    const missing = expectJsonError(await api(vault, keys.eng!, `/delete/item/999`), 404, 'not_found');
    expect(outside.err.replace('3', 'N')).toBe(missing.err.replace('999', 'N'));
    expectJsonError(
      await api(vault, keys.eng!, `/add/item/${newItem('wrong place', 3, 'Wp-Pw-1')}`),
      404,
      'not_found',
    );
    expect(fake.items().length).toBe(before);
  });

  it('writes through a writable key, audited with key, account, operation and ids, never values', async () => {
    const { vault, fake } = get();
    const added = await api(vault, keys.eng!, `/add/item/${newItem('ci deploy', 2, 'Deploy-Pw-Added-8')}`);
    expect(added.status).toBe(200);
    const id = Number((added.json as { new_item_id: string }).new_item_id);
    expect(fake.item(id)?.folderId).toBe(2);
    expect((await api(vault, keys.eng!, `/delete/item/${id}`)).status).toBe(200);
    const audit = await admin().listAudit({ limit: 50 });
    const write = audit.find((entry) => entry.action === 'add/item' && entry.outcome === 'ok');
    expect(write).toMatchObject({ actor: 'ci', keyLabel: 'eng-writer', target: `item ${id}` });
    const all = JSON.stringify(audit);
    for (const secret of [...Object.values(PASSWORDS), 'Deploy-Pw-Added-8', ALICE.password, ALICE.apiKey])
      expect(all).not.toContain(secret);
  });

  it('signs in once per account for many requests', async () => {
    const { vault, fake } = get();
    const before = fake.signIns('alice');
    await Promise.all(Array.from({ length: 20 }, () => api(vault, keys.all!, '/read/items/1;2')));
    expect(fake.signIns('alice')).toBe(before);
  });

  it('refuses a key bound to no account, and an expired key', async () => {
    const { vault } = get();
    expectJsonError(await api(vault, vault.adminKey, '/read/items/1'), 403, 'forbidden');
    const soon = await admin().createKey({
      label: 'short-lived',
      upstream: { account: 'ci', folders: 'all' },
      expiresAt: new Date(Date.now() + 1_000),
    });
    expect((await api(vault, soon, '/read/items/1')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const body = expectJsonError(await api(vault, soon, '/read/items/1'), 401, 'unauthorized');
    expect(body.err).toBe('API key expired.');
  });

  it('lists accounts without secrets, seals them bound to their row, refuses removal while keys use them', async () => {
    const { vault } = get();
    const listed = JSON.stringify(await admin().listUpstreamAccounts());
    expect(listed).toContain('"name":"ci"');
    expect(listed).not.toContain(ALICE.password);
    expect(listed).not.toContain(ALICE.apiKey);
    const [row] = await vault.server.vault.db.query<{ credentials: Uint8Array }>(
      'SELECT credentials FROM upstream_accounts WHERE name = $1',
      ['ci'],
    );
    expect(Buffer.from(row!.credentials).toString('latin1')).not.toContain(ALICE.password);
    const box = vault.server.vault.ctx.box;
    expect(() => box.open(row!.credentials)).toThrow();
    await expect(admin().removeUpstreamAccount('ci')).rejects.toThrow(/Revoke them first/);
  });

  it('signs in with a personal access token where TeamPass 3 allows them', async () => {
    const { vault, fake } = get();
    fake.configure({ personalAccessTokens: true });
    const token = fake.createPersonalAccessToken('alice');
    keys.pat = token;
    await admin().addUpstreamAccount({
      name: 'ci-token',
      url: fake.url,
      login: ALICE.login,
      method: 'personal-access-token',
      secrets: { personalAccessToken: token },
    });
    const key = await admin().createKey({
      label: 'via-token',
      upstream: { account: 'ci-token', folders: [2] },
    });
    keys.viaToken = key;
    expect(ids((await api(vault, key, '/read/items/1;2')).json)).toEqual([1]);
    expect(JSON.stringify(await admin().listUpstreamAccounts())).not.toContain(token);
    // The row keeps the column's spelling (as earlier servers wrote it), read as the core's kind.
    const [row] = await vault.server.vault.db.query<{ method: string }>(
      'SELECT method FROM upstream_accounts WHERE name = $1',
      ['ci-token'],
    );
    expect(row!.method).toBe('token');
    const listed = (await admin().listUpstreamAccounts()).find((account) => account.name === 'ci-token');
    expect(listed!.method).toBe('personal-access-token');
    // A caller of an earlier version says `token`: the same account, registered again.
    await admin().updateUpstreamAccount({
      name: 'ci-token',
      url: fake.url,
      login: ALICE.login,
      method: 'token' as never,
      secrets: { personalAccessToken: token },
    });
    expect(ids((await api(vault, key, '/read/items/1;2')).json)).toEqual([1]);
  });

  it('sends an account credentials only to the TeamPass they were registered for', async () => {
    const { vault } = get();
    const other = await startTeamPass3Fake({ seed: { users: [ALICE] } });
    try {
      await admin().addUpstreamAccount({
        name: 'elsewhere',
        url: other.url,
        login: ALICE.login,
        method: 'password',
        secrets: { password: ALICE.password, apiKey: ALICE.apiKey },
      });
      const key = await admin().createKey({
        label: 'elsewhere',
        upstream: { account: 'elsewhere', folders: 'all' },
      });
      keys.elsewhere = key;
      const seen = other.requests.length;
      const body = expectJsonError(await api(vault, key, '/read/items/1'), 502, 'server');
      expect(body.err).toMatch(/registered for another TeamPass/);
      expectJsonError(await api(vault, key, '/read/items/2'), 502, 'server');
      expect(other.requests.length).toBe(seen);
      expect(
        logLines.filter((line) => line.includes('registered for another TeamPass; not used')),
      ).toHaveLength(1);
      const listed = await admin().listUpstreamAccounts();
      expect(listed.find((account) => account.name === 'elsewhere')?.url).toBe(other.url);
    } finally {
      await other.close();
    }
  });

  it('refuses wrong credentials at registration and stores nothing', async () => {
    const { vault, fake } = get();
    await expect(
      admin().addUpstreamAccount({
        name: 'wrong',
        url: fake.url,
        login: ALICE.login,
        method: 'password',
        secrets: { password: 'not-the-password', apiKey: ALICE.apiKey },
      }),
    ).rejects.toThrow(/refused these credentials/);
    expect((await admin().listUpstreamAccounts()).map((a) => a.name)).not.toContain('wrong');
    expect(vault.url).toBeTruthy();
  });

  it('answers 502 when the upstream refuses the server credentials, and logs it once', async () => {
    const { vault, fake } = get();
    fake.updateUser('alice', { password: 'Changed-Under-The-Server-1' });
    fake.revokeSessions('alice');
    const first = expectJsonError(await api(vault, keys.all!, '/read/items/1'), 502, 'server');
    expectJsonError(await api(vault, keys.all!, '/read/items/2'), 502, 'server');
    expect(first.err).toMatch(/refused the credentials of account "ci"/);
    const logged = logLines.filter((line) => line.includes('refused the account credentials'));
    expect(logged).toHaveLength(1);
    // Suspended until registered again (here: the same credentials sealed anew).
    fake.updateUser('alice', { password: ALICE.password });
    await vault.server.vault.db.transaction((tx) =>
      reencryptAccounts(tx, vault.server.vault.ctx.box, vault.server.vault.ctx.box),
    );
    await vi.waitFor(async () => expect((await api(vault, keys.all!, '/read/items/1')).status).toBe(200), {
      timeout: 10_000,
      interval: 100,
    });
  });

  it('keeps one session per account and instance, and signs it out when the server stops', async () => {
    const { fake } = get();
    const live = () => fake.sessions('alice').filter((session) => session.revokedAt === undefined).length;
    const before = live();
    const second = await startTestVault({ upstreamUrl: fake.url, logLines });
    try {
      const secondAdmin = second.server.vault.adminAs(TEST_OPERATOR);
      await secondAdmin.addUpstreamAccount({
        name: 'ci',
        url: fake.url,
        login: ALICE.login,
        method: 'password',
        secrets: { password: ALICE.password, apiKey: ALICE.apiKey },
      });
      const key = await secondAdmin.createKey({
        label: 'second',
        upstream: { account: 'ci', folders: 'all' },
      });
      keys.second = key;
      await Promise.all(Array.from({ length: 5 }, () => api(second, key, '/read/items/1')));
      expect(live()).toBe(before + 1);
    } finally {
      await second.close();
    }
    expect(live()).toBe(before);
  });

  it('answers 502 with a clear error when the upstream is down', async () => {
    const { vault, fake } = get();
    await fake.close();
    const body = expectJsonError(await api(vault, keys.all!, '/read/items/1'), 502, 'server');
    expect(body.err).toMatch(/upstream TeamPass/);
  });
});

describe('upstream mode in front of TeamPass 2', () => {
  let teampass: ReplayServer | undefined;
  let vault: TestVault | undefined;
  const logLines: string[] = [];
  let key = '';
  const TP2_KEY = 'tp2-upstream-key-0123456789';

  beforeAll(async () => {
    teampass = await startReplayServer({ apiKey: TP2_KEY });
    vault = await startTestVault({ upstreamUrl: teampass.url, logLines });
    const admin = vault.server.vault.adminAs(TEST_OPERATOR);
    const registered = await admin.addUpstreamAccount({
      name: 'legacy',
      url: teampass.url,
      login: '',
      method: 'api-key',
      secrets: { apiKey: TP2_KEY },
    });
    expect(registered.dialect).toBe('legacy');
    key = await admin.createKey({ label: 'tp2-staging', upstream: { account: 'legacy', folders: [2] } });
    await expect(
      admin.createKey({ label: 'tp2-sub', upstream: { account: 'legacy', folders: [1], subfolders: true } }),
    ).rejects.toThrow(/Subfolders and folder paths need a TeamPass 3 account/);
    await expect(
      admin.createKey({ label: 'tp2-path', upstream: { account: 'legacy', folders: [], paths: ['Team'] } }),
    ).rejects.toThrow(/need a TeamPass 3 account/);
  });

  afterAll(async () => {
    await vault?.close();
    await teampass?.close();
    expectNoSecrets(logLines, [TP2_KEY, 'pw-db-seeded', 'pw-cache-seeded', key]);
  });

  it('cuts the god-mode key of TeamPass 2 to the machine key scope', async () => {
    const v = setByBeforeAll(vault, 'the vault');
    const answer = await api(v, key, '/read/items/10;11');
    expect(answer.status).toBe(200);
    expect(ids(answer.json)).toEqual([11]);
    expect((answer.json as { pw: string }[])[0]!.pw).toBe('pw-cache-seeded');
    expect((await api(v, key, '/read/folder/1')).json).toEqual([]);
  });

  it('answers read/otp 501 unsupported, as TeamPass 2 has no one-time codes and info/version says so', async () => {
    const v = setByBeforeAll(vault, 'the vault');
    const info = JSON.parse((await rawRequest(v.url, '/api/index.php/info/version')).body) as {
      features: string[];
    };
    expect(info.features).not.toContain('otp');
    const body = expectJsonError(await api(v, key, '/read/otp/11'), 501, 'unsupported');
    expect(body.err).toMatch(/one-time codes/i);
  });
});

describe('the read cache of upstream mode (on, with stale-if-error)', () => {
  const TTL_MS = 2_000;
  let fake: TeamPass3Fake | undefined;
  let vault: TestVault | undefined;
  const logLines: string[] = [];
  const keys: Record<string, string> = {};
  const get = () => ({ fake: setByBeforeAll(fake, 'the fake'), vault: setByBeforeAll(vault, 'the vault') });
  /** Item reads TeamPass 3 answered. */
  const itemReads = () => get().fake.requests.filter((request) => request.url.includes('/item/get')).length;
  const pw = async (key: string, id: number) =>
    ((await api(get().vault, key, `/read/items/${id}`)).json as { pw: string }[]).map((item) => item.pw);

  beforeAll(async () => {
    fake = await startTeamPass3Fake({
      seed: {
        folders: [
          { id: 1, title: 'Engineering' },
          { id: 3, title: 'Shared' },
        ],
        roles: [{ name: 'Devs', folders: { Engineering: 'W', Shared: 'R' } }],
        users: [{ ...ALICE, roles: ['Devs'] }],
        items: [
          { id: 1, label: 'api token', folder: 'Engineering', password: PASSWORDS.token },
          { id: 2, label: 'shared wiki', folder: 'Shared', password: PASSWORDS.wiki },
          {
            id: 4,
            label: 'github 2fa',
            folder: 'Engineering',
            password: 'Github-Pw-6',
            totp: 'JBSWY3DPEHPK3PXP',
          },
        ],
      },
    });
    vault = await startTestVault({
      upstreamUrl: fake.url,
      logLines,
      upstreamCacheTtlMs: TTL_MS,
      upstreamStaleIfErrorMs: 600_000,
    });
    const admin = vault.server.vault.adminAs(TEST_OPERATOR);
    await admin.addUpstreamAccount({
      name: 'ci',
      url: fake.url,
      login: ALICE.login,
      method: 'password',
      secrets: { password: ALICE.password, apiKey: ALICE.apiKey },
    });
    keys.all = await admin.createKey({
      label: 'all',
      upstream: { account: 'ci', folders: 'all', write: true },
    });
    keys.eng = await admin.createKey({ label: 'eng', upstream: { account: 'ci', folders: [1] } });
  });

  afterAll(async () => {
    await vault?.close();
    await fake?.close();
    expectNoSecrets(logLines, [
      ALICE.password,
      ALICE.apiKey,
      ...Object.values(PASSWORDS),
      ...Object.values(keys),
      'Cached-Rotated-1',
      'Github-Pw-6',
      'JBSWY3DPEHPK3PXP',
    ]);
  });

  it('reads an item once per scope and time, and forgets it on a write through the server', async () => {
    const before = itemReads();
    expect(await pw(keys.all!, 1)).toEqual([PASSWORDS.token]);
    expect(await pw(keys.all!, 1)).toEqual([PASSWORDS.token]);
    expect(itemReads()).toBe(before + 1);
    expect(await pw(keys.eng!, 1)).toEqual([PASSWORDS.token]); // another scope: its own entry
    expect(itemReads()).toBe(before + 2);
    const values = encodeItemValues({ label: 'api token', password: 'Cached-Rotated-1', folderId: 1 });
    expect((await api(get().vault, keys.all!, `/update/item/1/${values}`)).status).toBe(200);
    expect(await pw(keys.all!, 1)).toEqual(['Cached-Rotated-1']);
    expect(await pw(keys.eng!, 1)).toEqual(['Cached-Rotated-1']);
  });

  it('lets concurrent callers share one upstream read', async () => {
    const before = itemReads();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => api(get().vault, keys.all!, '/read/items/2;1')),
    );
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    expect(itemReads()).toBe(before + 2);
  });

  it('never keeps a one-time code: the next read after the code turned over is the new code', async () => {
    const { fake, vault } = get();
    const first = (await api(vault, keys.all!, '/read/otp/4')).json as { code: string };
    fake.clock.advance(30_000);
    const second = (await api(vault, keys.all!, '/read/otp/4')).json as { code: string };
    expect(second.code).toMatch(/^\d{6}$/);
    expect(second.code).not.toBe(first.code);
  });

  it('serves a kept answer while TeamPass is down, never in place of a refusal', async () => {
    const { fake } = get();
    expect(await pw(keys.all!, 2)).toEqual([PASSWORDS.wiki]);
    fake.setRoleRight('Devs', 'Shared', undefined);
    await new Promise((resolve) => setTimeout(resolve, TTL_MS + 200));
    // TeamPass answers: the right it revoked wins over the kept answer.
    expect(await pw(keys.all!, 2)).toEqual([]);
    expect(await pw(keys.all!, 1)).toEqual(['Cached-Rotated-1']);
    await new Promise((resolve) => setTimeout(resolve, TTL_MS + 200));
    await fake.close();
    // TeamPass down: the kept answer, past its time but within the stale limit.
    expect(await pw(keys.all!, 1)).toEqual(['Cached-Rotated-1']);
    expectJsonError(await api(get().vault, keys.all!, '/read/items/3'), 502, 'server');
  });
});

describe('upstream mode in front of a TeamPass 3 that hangs', () => {
  let fake: TeamPass3Fake | undefined;
  let proxy: Server | undefined;
  let vault: TestVault | undefined;
  let hang = false;
  let key = '';
  const logLines: string[] = [];

  beforeAll(async () => {
    fake = await startTeamPass3Fake({
      seed: {
        folders: [{ id: 1, title: 'Engineering' }],
        roles: [{ name: 'Devs', folders: { Engineering: 'W' } }],
        users: [{ ...ALICE, roles: ['Devs'] }],
        items: [{ id: 1, label: 'api token', folder: 'Engineering', password: PASSWORDS.token }],
      },
    });
    const target = new URL(fake.url);
    // A proxy that forwards to the fake, or takes requests and never answers them.
    proxy = createServer((incoming, outgoing) => {
      if (hang) return;
      const forwarded = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: incoming.url,
          method: incoming.method,
          headers: incoming.headers,
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      incoming.pipe(forwarded);
    });
    await new Promise<void>((resolve) => proxy!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    vault = await startTestVault({ upstreamUrl: url, logLines });
    const admin = vault.server.vault.adminAs(TEST_OPERATOR);
    await admin.addUpstreamAccount({
      name: 'ci',
      url,
      login: ALICE.login,
      method: 'password',
      secrets: { password: ALICE.password, apiKey: ALICE.apiKey },
    });
    key = await admin.createKey({ label: 'all', upstream: { account: 'ci', folders: 'all' } });
  });

  afterAll(async () => {
    await vault?.close();
    proxy?.closeAllConnections();
    await new Promise((resolve) => proxy?.close(resolve));
    await fake?.close();
    expectNoSecrets(logLines, [ALICE.password, ALICE.apiKey, PASSWORDS.token, key]);
  });

  it('answers 503 with a clear error once the upstream time is up, and serves again when it answers', async () => {
    const v = setByBeforeAll(vault, 'the vault');
    expect((await api(v, key, '/read/items/1')).status).toBe(200);
    hang = true;
    const started = Date.now();
    const body = expectJsonError(await api(v, key, '/read/items/1'), 503, 'server');
    expect(body.err).toMatch(/did not answer within the server's deadline/);
    // The caller's deadline (8 s by default), below the CLI's 10 s timeout.
    expect(Date.now() - started).toBeLessThan(10_000);
    hang = false;
    expect((await api(v, key, '/read/items/1')).status).toBe(200);
  }, 60_000);
});

describe('the upstream features when TeamPass 3 does not answer at start', () => {
  it('lists otp from the dialect the registered accounts were verified with, and none with no account', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'vaultline-upstream-features-'));
    const fake = await startTeamPass3Fake({
      seed: {
        folders: [{ id: 1, title: 'Engineering' }],
        roles: [{ name: 'Devs', folders: { Engineering: 'W' } }],
        users: [{ ...ALICE, roles: ['Devs'] }],
        items: [],
      },
    });
    const features = async (vault: TestVault) =>
      (
        JSON.parse((await rawRequest(vault.url, '/api/index.php/info/version')).body) as {
          features: string[];
        }
      ).features;
    try {
      // No account yet, and nothing answers at the upstream's address: no one-time codes.
      const down = `http://127.0.0.1:${await closedPort()}`;
      const empty = await startTestVault({ upstreamUrl: down, dataDir: join(dataDir, 'empty') });
      try {
        expect(await features(empty)).not.toContain('otp');
      } finally {
        await empty.close();
      }
      const first = await startTestVault({ upstreamUrl: fake.url, dataDir: join(dataDir, 'kept') });
      try {
        expect(await features(first)).toContain('otp');
        await first.server.vault.adminAs(TEST_OPERATOR).addUpstreamAccount({
          name: 'ci',
          url: fake.url,
          login: ALICE.login,
          method: 'password',
          secrets: { password: ALICE.password, apiKey: ALICE.apiKey },
        });
      } finally {
        await first.close();
      }
      const url = fake.url;
      await fake.close();
      const again = await startTestVault({ upstreamUrl: url, dataDir: join(dataDir, 'kept') });
      try {
        expect(await features(again)).toContain('otp');
      } finally {
        await again.close();
      }
    } finally {
      await fake.close().catch(() => {});
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

/** A port where nothing listens. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
