/**
 * Upstream mode when TeamPass has a bad day: the real server over HTTP in front of the TeamPass 3
 * fake, on PGlite, with the faults TeamPass has (a refused sign-in, a 429 with `Retry-After`, a
 * hang). The server never amplifies them: a refused account is suspended, a 429 stops its calls,
 * a hang opens the breaker, every caller is answered within its deadline, a caller that leaves
 * takes its upstream work with it; identical reads are made once; a refusal empties the cache.
 */

import { request as httpRequest } from 'node:http';
import { createVaultClient } from '@vaultline/protocol';
import {
  startTeamPass3Fake,
  type TeamPass3Fake,
  type TeamPass3FakeOptions,
} from '@vaultline/protocol/testing';
import { openPostgres } from '@vaultline/store';
import { type PostgresCluster, startPostgresCluster } from '@vaultline/store/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { UPSTREAM_PACE_TABLE } from '../src/constants.ts';
import { generateMasterKey } from '../src/crypto/master-key.ts';
import { reencryptAccounts } from '../src/store/upstream-accounts.ts';
import { startTestVault, type TestVault, type TestVaultOptions } from '../src/testing.ts';
import { faultsSeed, IN_FOLDER } from './support/faults-seed.ts';
import { expectJsonError, expectNoSecrets, rawRequest, TEST_OPERATOR } from './support/helpers.ts';

const ALICE = {
  login: 'alice',
  password: 'Alice-Faults-Pw-4%',
  apiKey: 'aliceFaultsApiKey0123456789abcdefghijkl',
};
const seed = () => faultsSeed(ALICE, 'Faults');

/** A server in front of the fake with the account `ci` registered, and keys made on demand. */
async function serve(fake: TeamPass3Fake, logLines: string[], options: TestVaultOptions = {}) {
  const vault = await startTestVault({ upstreamUrl: fake.url, logLines, ...options });
  const admin = vault.server.vault.adminAs(TEST_OPERATOR);
  await admin.addUpstreamAccount({
    name: 'ci',
    url: fake.url,
    login: ALICE.login,
    method: 'password',
    secrets: { password: ALICE.password, apiKey: ALICE.apiKey },
  });
  let made = 0;
  const key = (folders: 'all' | number[] = 'all') =>
    admin.createKey({ label: `key-${++made}`, upstream: { account: 'ci', folders } });
  return { vault, key };
}

async function api(vault: TestVault, key: string, path: string) {
  const answer = await rawRequest(vault.url, `/api/index.php${path}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return { ...answer, json: JSON.parse(answer.body) as unknown };
}

const signInsSent = (fake: TeamPass3Fake) =>
  fake.requests.filter((request) => request.method === 'POST' && request.url.includes('/authorize')).length;
const itemCalls = (fake: TeamPass3Fake) =>
  fake.requests.filter((request) => request.url.includes('/item/')).length;

/**
 * A fake and a server in front of it for the tests of one `describe`, closed after them (a hang
 * released first); the server's log is then scanned for the account's secrets and `secrets`.
 */
function servedPerSuite(
  options: { fake?: Omit<TeamPass3FakeOptions, 'seed'>; server?: TestVaultOptions; secrets?: string[] } = {},
) {
  const suite = { logLines: [] as string[] } as {
    fake: TeamPass3Fake;
    served: Awaited<ReturnType<typeof serve>>;
    logLines: string[];
  };
  beforeAll(async () => {
    suite.fake = await startTeamPass3Fake({ ...options.fake, seed: seed() });
    suite.served = await serve(suite.fake, suite.logLines, options.server);
  });
  afterAll(async () => {
    suite.fake?.recover();
    await suite.served?.vault.close();
    await suite.fake?.close();
    expectNoSecrets(suite.logLines, [ALICE.password, ALICE.apiKey, ...(options.secrets ?? [])]);
  });
  return suite;
}

describe('a TeamPass that refuses the account', () => {
  const suite = servedPerSuite({ secrets: ['Changed-Under-The-Server-7'] });

  it('suspends it after one refused sign-in: 502 at once naming the account, until it is registered again', async () => {
    const { vault, key } = suite.served;
    const machine = await key();
    expect((await api(vault, machine, '/read/items/1')).status).toBe(200);
    suite.fake.updateUser('alice', { password: 'Changed-Under-The-Server-7' });
    suite.fake.revokeSessions('alice');
    suite.fake.resetCounters();
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => api(vault, machine, `/read/items/${i + 1}`)),
    );
    for (const answer of answers) {
      const body = expectJsonError(answer, 502, 'server');
      expect(body.err).toMatch(/account "ci"/);
      expect(body.err).toMatch(/registers its credentials again/);
    }
    expect(signInsSent(suite.fake)).toBe(1);
    expect(
      suite.logLines.filter((line) => line.includes('suspended until they are registered again')),
    ).toHaveLength(1);

    // TeamPass would take the password again, but the server does not try it on its own.
    suite.fake.updateUser('alice', { password: ALICE.password });
    expectJsonError(await api(vault, machine, '/read/items/1'), 502, 'server');
    expect(signInsSent(suite.fake)).toBe(1);

    // Registered again (sealed anew): the suspension is lifted once the instance reads it (1 s).
    await vault.server.vault.db.transaction((tx) =>
      reencryptAccounts(tx, vault.server.vault.ctx.box, vault.server.vault.ctx.box),
    );
    await vi.waitFor(async () => expect((await api(vault, machine, '/read/items/1')).status).toBe(200), {
      timeout: 10_000,
      interval: 100,
    });
    expect(signInsSent(suite.fake)).toBe(2);
  });
});

describe('a TeamPass that answers 429 with Retry-After', () => {
  const suite = servedPerSuite({
    // TeamPass's minute window 30 s in: a 429 asks for the 30 s left of it.
    fake: { now: Math.floor(Date.now() / 60_000) * 60_000 + 30_000, settings: { rateLimitPerMinute: 3 } },
  });

  it('sends nothing more until Retry-After has passed, and tells every caller what is left of it', async () => {
    const { vault, key } = suite.served;
    const machine = await key();
    let limited: Awaited<ReturnType<typeof api>> | undefined;
    for (let id = 1; id <= 10 && !limited; id++) {
      const answer = await api(vault, machine, `/read/items/${id}`);
      if (answer.status !== 200) limited = answer;
    }
    expect(limited?.status).toBe(503);
    expect(suite.fake.requests.filter((request) => request.status === 429)).toHaveLength(1);
    suite.fake.resetCounters();
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => api(vault, machine, `/read/items/${i + 11}`)),
    );
    for (const answer of answers) {
      expectJsonError(answer, 503, 'rate_limited');
      const retryAfter = Number(answer.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(30);
    }
    expect(suite.fake.requests).toHaveLength(0);
  });
});

describe('a TeamPass that hangs', () => {
  const DEADLINE_MS = 2_000;
  const suite = servedPerSuite({ server: { upstreamDeadlineMs: DEADLINE_MS } });

  it('cancels the upstream call of a caller that went away', async () => {
    const { vault, key } = suite.served;
    const machine = await key();
    expect((await api(vault, machine, '/read/items/1')).status).toBe(200);
    suite.fake.hang();
    const url = new URL(vault.url);
    const gone = httpRequest({
      host: url.hostname,
      port: url.port,
      path: '/api/index.php/read/items/2',
      headers: { authorization: `Bearer ${machine}` },
    });
    gone.on('error', () => {});
    gone.end();
    await vi.waitFor(() => expect(suite.fake.held()).toBe(1), { timeout: DEADLINE_MS, interval: 10 });
    gone.destroy();
    // The server's exchange with TeamPass ends with its caller, long before the deadline.
    await vi.waitFor(() => expect(suite.fake.held()).toBe(0), { timeout: DEADLINE_MS / 2, interval: 10 });
    suite.fake.recover();
  });

  it('answers 20 callers 503 by their deadline with 8 calls in flight, then fails fast until a probe gets through', async () => {
    const { vault, key } = suite.served;
    const machine = await key();
    expect((await api(vault, machine, '/read/items/1')).status).toBe(200);
    suite.fake.hang();
    const waiting = Promise.all(
      Array.from({ length: 20 }, (_, i) => api(vault, machine, `/read/items/${i + 100}`)),
    );
    await vi.waitFor(() => expect(suite.fake.held()).toBe(8), { timeout: DEADLINE_MS, interval: 10 });
    const answers = await waiting;
    for (const answer of answers) expect(answer.status).toBe(503);
    // Eight timeouts opened the breaker: the next caller is answered by it, nothing sent.
    const fast = expectJsonError(await api(vault, machine, '/read/items/1'), 503, 'rate_limited');
    expect(fast.err).toMatch(/not answering/);
    suite.fake.recover();
    await vi.waitFor(async () => expect((await api(vault, machine, '/read/items/1')).status).toBe(200), {
      timeout: 30_000,
      interval: 250,
    });
  }, 60_000);
});

describe('work shared between callers (cache off)', () => {
  const suite = servedPerSuite();

  it('makes 20 identical concurrent reads one upstream call', async () => {
    const { vault, key } = suite.served;
    const machine = await key();
    expect((await api(vault, machine, '/read/items/5')).status).toBe(200);
    suite.fake.hang();
    suite.fake.resetCounters();
    const answers = Array.from({ length: 20 }, () => api(vault, machine, '/read/items/7'));
    await vi.waitFor(() => expect(suite.fake.held()).toBe(1), { timeout: 5_000, interval: 10 });
    // A read sent after the twenty reaches TeamPass once the server has taken them in.
    const barrier = api(vault, machine, '/read/items/8');
    await vi.waitFor(() => expect(suite.fake.held()).toBe(2), { timeout: 5_000, interval: 10 });
    suite.fake.recover();
    for (const answer of await Promise.all(answers)) {
      expect(answer.status).toBe(200);
      expect((answer.json as { pw: string }[]).map((item) => item.pw)).toEqual(['Faults-Secret-7']);
    }
    expect((await barrier).status).toBe(200);
    expect(itemCalls(suite.fake)).toBe(2);
  });

  it('reads 1,000 ids under a one-folder scope by its folder, not one call per id', async () => {
    const { vault, key } = suite.served;
    const scoped = await key([1]);
    suite.fake.resetCounters();
    const ids = [...Array.from({ length: IN_FOLDER - 1 }, (_, i) => i + 1), IN_FOLDER + 1];
    const read = await api(vault, scoped, `/read/items/${ids.join(';')}`);
    expect(read.status).toBe(200);
    const found = (read.json as { id: string }[]).map((item) => Number(item.id));
    expect(found).toEqual(ids.slice(0, IN_FOLDER - 1));
    // item/inFolders pages of 500: two calls for the folder, whatever the number of ids.
    expect(itemCalls(suite.fake)).toBeLessThanOrEqual(3);
  });
});

describe('reads of many ids by an all-folders key (cache off)', () => {
  const suite = servedPerSuite();

  const ids = Array.from({ length: 10 }, (_, i) => i + 1);
  const served10 = async (key: string) => {
    const read = await api(suite.served.vault, key, `/read/items/${ids.join(';')}`);
    expect(read.status).toBe(200);
    return (read.json as { id: string; folder_id: string; pw: string }[]).map((item) => ({
      id: Number(item.id),
      folder: Number(item.folder_id),
      pw: item.pw,
    }));
  };
  const expected = (moved: number | undefined) =>
    ids.map((id) => ({ id, folder: id === moved ? 2 : 1, pw: `Faults-Secret-${id}` }));

  it('reads them by the folder they were last seen in, once they were seen', async () => {
    const machine = await suite.served.key();
    suite.fake.resetCounters();
    expect(await served10(machine)).toEqual(expected(undefined));
    // Never seen: one item/get each.
    expect(itemCalls(suite.fake)).toBe(ids.length);

    // Seen in folder 1 (by any key of the account): its two item/inFolders pages, not ten calls.
    suite.fake.resetCounters();
    expect(await served10(await suite.served.key())).toEqual(expected(undefined));
    expect(itemCalls(suite.fake)).toBe(2);
  });

  it('still finds an item moved since, by its id', async () => {
    const teampass = createVaultClient({
      baseUrl: suite.fake.url,
      auth: { login: ALICE.login, password: ALICE.password, apiKey: ALICE.apiKey },
    });
    try {
      await teampass.items.update(7, { folderId: 2 });
    } finally {
      await teampass.dispose();
    }
    const machine = await suite.served.key();
    suite.fake.resetCounters();
    expect(await served10(machine)).toEqual(expected(7));
    // Folder 1's pages, then item 7 by id; it is learned in folder 2 for the next read.
    expect(itemCalls(suite.fake)).toBe(3);
    // Now folders 1 and 2 in one item/inFolders: 1,001 items, three pages.
    suite.fake.resetCounters();
    expect(await served10(machine)).toEqual(expected(7));
    expect(itemCalls(suite.fake)).toBe(3);
  });
});

describe('the read cache when TeamPass refuses the account', () => {
  const suite = servedPerSuite({ server: { upstreamCacheTtlMs: 60_000, upstreamStaleIfErrorMs: 600_000 } });

  it('drops the answers it kept on a 403 and never serves them in an outage after', async () => {
    const { vault, key } = suite.served;
    const machine = await key();
    const pw = async (id: number) =>
      (await api(vault, machine, `/read/items/${id}`)).json as { pw: string }[];
    expect((await pw(3)).map((item) => item.pw)).toEqual(['Faults-Secret-3']);
    suite.fake.setApiFlags('alice', { read: false });
    // Another read reaches TeamPass and is refused: what was kept of the account goes.
    expectJsonError(await api(vault, machine, '/read/items/4'), 403, 'forbidden');
    suite.fake.setApiFlags('alice', { read: true });
    await suite.fake.close();
    // TeamPass down: nothing kept stands in.
    expectJsonError(await api(vault, machine, '/read/items/3'), 502, 'server');
  });
});

describe('an account paced below the limit of TeamPass', () => {
  const suite = servedPerSuite({
    // Four calls at once, then one every 15 s; a deadline far shorter than that.
    server: { upstreamCallsPerMinute: 8, upstreamDeadlineMs: 2_000 },
  });

  it('sends its burst at once, then answers 503 with Retry-After when the next place is past the deadline', async () => {
    const { vault, key } = suite.served;
    const machine = await key();
    suite.fake.resetCounters();
    // The sign-in and a read, then three reads at once: the burst's four places, and one too many.
    expect((await api(vault, machine, '/read/items/1')).status).toBe(200);
    const burst = await Promise.all([2, 3, 4].map((id) => api(vault, machine, `/read/items/${id}`)));
    expect(burst.map((answer) => answer.status).sort()).toEqual([200, 200, 503]);
    // The next place comes 15 s after the burst, far past the caller's deadline.
    const refused = burst.find((answer) => answer.status === 503);
    expect(expectJsonError(refused!, 503, 'rate_limited').err).toMatch(/pace/);
    expect(Number(refused?.headers['retry-after'])).toBeGreaterThan(5);
    expect(Number(refused?.headers['retry-after'])).toBeLessThanOrEqual(15);
    expect(signInsSent(suite.fake)).toBe(1);
    expect(itemCalls(suite.fake)).toBe(3);
  }, 60_000);
});

describe('an account paced across two instances on PostgreSQL', () => {
  let cluster: PostgresCluster;
  let fake: TeamPass3Fake;
  const vaults: TestVault[] = [];

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    fake = await startTeamPass3Fake({ seed: seed() });
  });
  afterAll(async () => {
    for (const vault of vaults) await vault.close();
    await fake?.close();
    await cluster?.stop();
  });

  it('shares one burst of calls between the instances, exactly', async () => {
    const databaseUrl = await cluster.createDatabase();
    const options = {
      databaseUrl,
      masterKey: generateMasterKey(),
      upstreamCallsPerMinute: 8,
      upstreamDeadlineMs: 2_000,
    };
    const logLines: string[] = [];
    const first = await serve(fake, logLines, options);
    vaults.push(first.vault);
    const second = await startTestVault({ upstreamUrl: fake.url, ...options });
    vaults.push(second);
    const machine = await first.key();
    fake.resetCounters();
    // Each instance signs in and reads, at once: the burst's four calls.
    const reads = await Promise.all([
      api(first.vault, machine, '/read/items/1'),
      api(second, machine, '/read/items/2'),
    ]);
    expect(reads.map((answer) => answer.status)).toEqual([200, 200]);
    // Neither instance has a place left, whichever it is.
    const more = await Promise.all(
      [3, 4, 5, 6].map((id) => api(id % 2 === 0 ? second : first.vault, machine, `/read/items/${id}`)),
    );
    for (const answer of more) {
      expect(expectJsonError(answer, 503, 'rate_limited').err).toMatch(/pace/);
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(5);
    }
    expect(signInsSent(fake)).toBe(2);
    expect(itemCalls(fake)).toBe(2);

    // The shared pace failing (its table gone): each instance paces in its own memory, and says so.
    const db = await openPostgres({ url: databaseUrl, poolSize: 1 });
    try {
      await db.exec(`DROP TABLE ${UPSTREAM_PACE_TABLE}`);
    } finally {
      await db.close();
    }
    expect((await api(first.vault, machine, '/read/items/7')).status).toBe(200);
    expect((await api(first.vault, machine, '/read/items/8')).status).toBe(200);
    // Said once for the outage, not once per call.
    const told = logLines.filter((line) => line.includes('upstream pace: the database could not be reached'));
    expect(told).toHaveLength(1);
    expectNoSecrets(logLines, [ALICE.password, ALICE.apiKey, machine, 'Faults-Secret-7']);
  }, 120_000);
});
