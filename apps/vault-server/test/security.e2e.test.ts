import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestVault, type TestVault } from '../src/testing.ts';
import {
  clientOf,
  expectJsonError,
  expectNoSecrets,
  expectVaultError,
  rawRequest,
  TEST_OPERATOR,
} from './support/helpers.ts';

describe('vault server security', () => {
  let vault: TestVault;
  let proxied: TestVault;
  const logLines: string[] = [];
  const secrets: string[] = [];

  beforeAll(async () => {
    vault = await startTestVault({ logLines, rateLimitPerMinute: 40, failedKeyLimit: 3 });
    proxied = await startTestVault({ logLines, trustedProxies: ['127.0.0.1/32'] });
    secrets.push(vault.adminKey, proxied.adminKey);
  });

  afterAll(async () => {
    await vault?.close();
    await proxied?.close();
    expectNoSecrets(logLines, secrets);
  });

  const read = (target: TestVault, key: string, localAddress: string, headers: Record<string, string> = {}) =>
    rawRequest(target.url, `/api/index.php/read/userfolders/ip-user?apikey=${key}`, {
      localAddress,
      headers,
    });

  it('checks the IP allow-list of a key against the socket address', async () => {
    await vault.admin.createUser({ login: 'ip-user' });
    const onlyTwo = await vault.admin.createKey({
      label: 'only-127.0.0.2',
      login: 'ip-user',
      allowIps: ['127.0.0.2/32'],
    });
    const tenNet = await vault.admin.createKey({
      label: 'ten-net',
      login: 'ip-user',
      allowIps: ['10.0.0.0/8', '::1/128'],
    });
    secrets.push(onlyTwo, tenNet);
    expect((await read(vault, onlyTwo, '127.0.0.2')).status).toBe(200);
    const refused = expectJsonError(await read(vault, onlyTwo, '127.0.0.5'), 403, 'forbidden');
    expect(refused.err).toMatch(/Ip address not allowed/);
    expectJsonError(await read(vault, tenNet, '127.0.0.5'), 403, 'forbidden');
    await expect(vault.admin.createKey({ label: 'bad-cidr', allowIps: ['10.0.0.0/99'] })).rejects.toThrow(
      /prefix length/,
    );
    await expect(vault.admin.createKey({ label: 'bad-ip', allowIps: ['not-an-ip'] })).rejects.toThrow(/CIDR/);
  });

  it('ignores X-Forwarded-For unless the peer is a trusted proxy', async () => {
    const tenNet = await vault.admin.createKey({
      label: 'ten-net-2',
      login: 'ip-user',
      allowIps: ['10.0.0.0/8'],
    });
    secrets.push(tenNet);
    expectJsonError(
      await read(vault, tenNet, '127.0.0.6', { 'x-forwarded-for': '10.1.2.3' }),
      403,
      'forbidden',
    );

    await proxied.admin.createUser({ login: 'ip-user' });
    const proxiedTen = await proxied.admin.createKey({
      label: 'p-ten',
      login: 'ip-user',
      allowIps: ['10.0.0.0/8'],
    });
    const proxiedLocal = await proxied.admin.createKey({
      label: 'p-local',
      login: 'ip-user',
      allowIps: ['127.0.0.1/32'],
    });
    secrets.push(proxiedTen, proxiedLocal);
    // Through the trusted proxy (127.0.0.1) the client is the last untrusted hop.
    expect(
      (await read(proxied, proxiedTen, '127.0.0.1', { 'x-forwarded-for': '203.0.113.9, 10.1.2.3' })).status,
    ).toBe(200);
    expectJsonError(
      await read(proxied, proxiedTen, '127.0.0.1', { 'x-forwarded-for': '10.1.2.3, 203.0.113.9' }),
      403,
      'forbidden',
    );
    expectJsonError(
      await read(proxied, proxiedLocal, '127.0.0.1', { 'x-forwarded-for': '10.1.2.3' }),
      403,
      'forbidden',
    );
    // A peer that is not a trusted proxy cannot claim another address.
    expectJsonError(
      await read(proxied, proxiedTen, '127.0.0.7', { 'x-forwarded-for': '10.1.2.3' }),
      403,
      'forbidden',
    );
  });

  it('locks out failing keys from an address, never a valid key from it, and audits the failures', async () => {
    const lockout = await startTestVault({ logLines, failedKeyLimit: 10 });
    try {
      secrets.push(lockout.adminKey);
      await lockout.admin.createUser({ login: 'ip-user' });
      const wrong = (i: number) => read(lockout, `vlk_wrong-key-number-${i}`, '127.0.0.8');
      for (let i = 0; i < 10; i++) {
        const answer = await wrong(i);
        expectJsonError(answer, 401, 'unauthorized');
        expect(answer.body).not.toContain('wrong-key-number');
      }
      for (let i = 10; i < 14; i++) {
        const refused = await wrong(i);
        expectJsonError(refused, 429, 'rate_limited');
        expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      }
      // The good key from the same address still works, in the URL and in the header.
      expect((await read(lockout, lockout.adminKey, '127.0.0.8')).status).toBe(200);
      const viaHeader = await rawRequest(lockout.url, '/api/index.php/read/userfolders/ip-user', {
        localAddress: '127.0.0.8',
        headers: { authorization: `Bearer ${lockout.adminKey}` },
      });
      expect(viaHeader.status).toBe(200);
      // …while the wrong ones stay refused, and other addresses are not concerned.
      expectJsonError(await wrong(99), 429, 'rate_limited');
      expectJsonError(await read(lockout, 'vlk_wrong-key-elsewhere', '127.0.0.9'), 401, 'unauthorized');
      const audit = await lockout.server.vault
        .adminAs(TEST_OPERATOR)
        .listAudit({ limit: 100, action: 'auth/failed' });
      expect(audit.filter((entry) => entry.address === '127.0.0.8')).toHaveLength(10);
      expect(JSON.stringify(audit)).not.toContain('wrong-key-number');
    } finally {
      await lockout.close();
    }
  });

  it('tells a revoked key from a mistyped one, and counts both toward the lockout', async () => {
    const lockout = await startTestVault({ logLines, failedKeyLimit: 4 });
    try {
      secrets.push(lockout.adminKey);
      await lockout.admin.createUser({ login: 'ip-user' });
      const revoked = await lockout.admin.createKey({ label: 'rv-ci', login: 'ip-user' });
      secrets.push(revoked);
      expect((await read(lockout, revoked, '127.0.0.11')).status).toBe(200);
      await lockout.admin.revokeKey('rv-ci');
      // A typo of the revoked key: one character changed.
      const typo = `${revoked.slice(0, -1)}${revoked.endsWith('A') ? 'B' : 'A'}`;
      const revokedAnswer = await read(lockout, revoked, '127.0.0.11');
      const typoAnswer = await read(lockout, typo, '127.0.0.11');
      expect([revokedAnswer.status, JSON.parse(revokedAnswer.body)]).toEqual([
        401,
        { err: 'API key revoked.', code: 'unauthorized', reason: 'key_revoked' },
      ]);
      expect([typoAnswer.status, JSON.parse(typoAnswer.body)]).toEqual([
        401,
        { err: 'Invalid API key.', code: 'unauthorized' },
      ]);
      // Neither the key nor its label or owner is told.
      for (const answer of [revokedAnswer, typoAnswer]) {
        expect(answer.body).not.toContain(revoked.slice(4, 20));
        expect(answer.body).not.toMatch(/rv-ci|ip-user/);
      }
      // The core tells them apart (from 127.0.0.1, another address).
      const viaCore = await expectVaultError(
        clientOf(lockout, revoked).readUserFolders({ login: 'ip-user' }),
        'unauthorized',
        401,
      );
      expect(viaCore.reason).toBe('key_revoked');
      const typoViaCore = await expectVaultError(
        clientOf(lockout, typo).readUserFolders({ login: 'ip-user' }),
        'unauthorized',
        401,
      );
      expect(typoViaCore.reason).toBeUndefined();
      // A revoked key is a failed key: the third and fourth failures reach the limit of 4, and then
      // a revoked key gets the same 429 as any wrong key, which says nothing about the key.
      expectJsonError(await read(lockout, revoked, '127.0.0.11'), 401, 'unauthorized');
      expectJsonError(await read(lockout, typo, '127.0.0.11'), 401, 'unauthorized');
      const limitedRevoked = await read(lockout, revoked, '127.0.0.11');
      const limitedTypo = await read(lockout, typo, '127.0.0.11');
      expectJsonError(limitedRevoked, 429, 'rate_limited');
      expect(JSON.parse(limitedRevoked.body)).toEqual(JSON.parse(limitedTypo.body));
      expect((await read(lockout, lockout.adminKey, '127.0.0.11')).status).toBe(200);
      // The audit names the revoked key's label, so an administrator sees who still uses it.
      const audit = await lockout.server.vault
        .adminAs(TEST_OPERATOR)
        .listAudit({ limit: 100, action: 'auth/failed' });
      const fromEleven = audit.filter((entry) => entry.address === '127.0.0.11');
      expect(fromEleven.map((entry) => [entry.keyLabel, entry.outcome]).sort()).toEqual([
        ['', 'unauthorized'],
        ['', 'unauthorized'],
        ['rv-ci', 'key revoked'],
        ['rv-ci', 'key revoked'],
      ]);
    } finally {
      await lockout.close();
    }
  });

  it('limits requests per address per minute with 429 and Retry-After', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 45; i++) statuses.push((await read(vault, vault.adminKey, '127.0.0.10')).status);
    expect(statuses.slice(0, 40).every((status) => status === 200)).toBe(true);
    expect(statuses.slice(40).every((status) => status === 429)).toBe(true);
    const limited = await read(vault, vault.adminKey, '127.0.0.10');
    expectJsonError(limited, 429, 'rate_limited');
    expect(limited.headers['retry-after']).toBeDefined();
    expect((await read(vault, vault.adminKey, '127.0.0.11')).status).toBe(200);
  });

  it('audits reads that return passwords and writes, with the key label and never a secret', async () => {
    const client = clientOf(proxied);
    const folder = await client.addFolder({ folder: { title: 'Audited' } });
    const password = 'audit-secret-password-123';
    secrets.push(password);
    const { id } = await client.addItem({ item: { label: 'audited item', password, folderId: folder.id } });
    await client.readItems({ ids: [id] });
    await client.deleteItems({ ids: [id] });
    // Reads are audited in batches within 50 ms.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const audit = await proxied.server.vault.adminAs(TEST_OPERATOR).listAudit({ limit: 20 });
    const mine = audit
      .filter((entry) => entry.actor === 'admin')
      .map((entry) => [entry.action, entry.target, entry.outcome]);
    expect(mine).toEqual(
      expect.arrayContaining([
        ['delete/item', `items ${id}`, 'ok'],
        ['read/items', `items ${id}`, 'ok'],
        ['add/item', `item ${id}`, 'ok'],
        ['add/folder', `folder ${folder.id}`, 'ok'],
      ]),
    );
    expect(audit[0]!.keyLabel).toMatch(/^test-admin-/);
    expect(JSON.stringify(audit)).not.toContain(password);
    expect(JSON.stringify(audit)).not.toContain(proxied.adminKey);
  });
});
