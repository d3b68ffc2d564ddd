/**
 * Upstream mode on PostgreSQL with two instances: one TeamPass session per account and instance, a
 * key revoked on one instance refused by the other at once (the database's announcement), even
 * while requests race the revocation; an account TeamPass refused is suspended on both.
 */

import { startTeamPass3Fake, type TeamPass3Fake } from '@vaultline/protocol/testing';
import { type PostgresCluster, startPostgresCluster } from '@vaultline/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateMasterKey } from '../src/crypto/master-key.ts';
import { startTestVault, type TestVault } from '../src/testing.ts';
import { expectNoSecrets, rawRequest, setByBeforeAll, TEST_OPERATOR } from './support/helpers.ts';

const ALICE = {
  login: 'alice',
  password: 'Two-Instances-Pw-5!',
  apiKey: 'twoInstancesApiKey0123456789abcdefghijk',
};
const SECRET = 'Two-Instances-Item-Secret';

describe('upstream mode, two instances on one PostgreSQL database', () => {
  let cluster: PostgresCluster | undefined;
  let fake: TeamPass3Fake | undefined;
  const vaults: TestVault[] = [];
  const logLines: string[] = [];
  const keys: string[] = [];
  const both = () => {
    const [a, b] = vaults;
    if (!a || !b) throw new Error('read before beforeAll ran');
    return { a, b, fake: setByBeforeAll(fake, 'the fake') };
  };
  const status = async (vault: TestVault, key: string) =>
    (
      await rawRequest(vault.url, '/api/index.php/read/items/1', {
        headers: { authorization: `Bearer ${key}` },
      })
    ).status;
  const until = async (check: () => Promise<boolean>, what: string) => {
    const deadline = Date.now() + 10_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    fake = await startTeamPass3Fake({
      seed: {
        folders: [{ id: 1, title: 'Engineering' }],
        roles: [{ name: 'Devs', folders: { Engineering: 'W' } }],
        users: [{ ...ALICE, roles: ['Devs'] }],
        items: [{ id: 1, label: 'deploy', folder: 'Engineering', password: SECRET }],
      },
    });
    const options = {
      databaseUrl: await cluster.createDatabase(),
      masterKey: generateMasterKey(),
      upstreamUrl: fake.url,
      logLines,
      cacheTtlMs: 60_000,
    };
    vaults.push(await startTestVault(options));
    vaults.push(await startTestVault(options));
    await vaults[0]!.server.vault.adminAs(TEST_OPERATOR).addUpstreamAccount({
      name: 'ci',
      url: fake.url,
      login: ALICE.login,
      method: 'password',
      secrets: { password: ALICE.password, apiKey: ALICE.apiKey },
    });
  });

  afterAll(async () => {
    for (const vault of vaults) await vault.close();
    await fake?.close();
    await cluster?.stop();
    expectNoSecrets(logLines, [ALICE.password, ALICE.apiKey, SECRET, ...keys, ...(fake?.tokens() ?? [])]);
  });

  it('keeps one TeamPass session per account and instance', async () => {
    const { a, b, fake } = both();
    const key = await a.server.vault.adminAs(TEST_OPERATOR).createKey({
      label: 'shared',
      upstream: { account: 'ci', folders: [1] },
    });
    keys.push(key);
    const signIns = fake.signIns('alice');
    const statuses = await Promise.all(Array.from({ length: 20 }, (_, i) => status(i % 2 ? a : b, key)));
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(fake.signIns('alice')).toBe(signIns + 2);
  });

  it('refuses a key revoked on one instance on the other at once, while requests race the revocation', async () => {
    const { a, b } = both();
    const key = await a.server.vault.adminAs(TEST_OPERATOR).createKey({
      label: 'revoked-in-flight',
      upstream: { account: 'ci', folders: 'all' },
    });
    keys.push(key);
    expect(await status(b, key)).toBe(200); // cached on B now
    const racing = Promise.all(Array.from({ length: 20 }, (_, i) => status(i % 2 ? a : b, key)));
    await a.server.vault.adminAs(TEST_OPERATOR).revokeKey('revoked-in-flight');
    const raced = await racing;
    expect(raced.every((s) => s === 200 || s === 401)).toBe(true);
    await until(async () => (await status(b, key)) === 401, 'B to refuse the revoked key');
    expect(await status(a, key)).toBe(401);
  });

  // Last: it leaves the account suspended.
  it('suspends the account on both instances when TeamPass refuses it on one: no sign-in from the other', async () => {
    const { a, b, fake } = both();
    const key = await a.server.vault.adminAs(TEST_OPERATOR).createKey({
      label: 'refused',
      upstream: { account: 'ci', folders: 'all' },
    });
    keys.push(key);
    fake.updateUser('alice', { password: 'Two-Instances-Changed-6' });
    fake.revokeSessions('alice');
    fake.resetCounters();
    expect(await status(a, key)).toBe(502);
    const signIns = () => fake.requests.filter((request) => request.url.includes('/authorize')).length;
    expect(signIns()).toBe(1);
    const statuses = await Promise.all(Array.from({ length: 20 }, (_, i) => status(i % 2 ? a : b, key)));
    expect(statuses.every((s) => s === 502)).toBe(true);
    // Each instance reads the holds at most a second old: the other may have signed in once before
    // it saw this one, never more.
    const seen = signIns();
    expect(seen).toBeLessThanOrEqual(2);
    const again = await Promise.all(Array.from({ length: 20 }, (_, i) => status(i % 2 ? a : b, key)));
    expect(again.every((s) => s === 502)).toBe(true);
    expect(signIns()).toBe(seen);
  });
});
