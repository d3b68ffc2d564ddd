/**
 * Every request of the core asks the browser not to store its answer (`cache: 'no-store'`): an
 * answer may hold passwords, and TeamPass sends no `Cache-Control` (or `no-cache`, which still
 * stores), so a browser's disk cache would keep it. Checked on both dialects, through the fetch the
 * client is given, for the detection, sign-in, reads, search, writes, a failed call and sign-out.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectDialect } from '../src/dialect.ts';
import { type ReplayServer, startReplayServer } from '../src/testing/teampass-replay-server.ts';
import { startTeamPass3Fake, type TeamPass3Fake } from '../src/testing.ts';
import { createVaultClient } from '../src/vault/client.ts';
import type { VaultClientOptions } from '../src/vault/types.ts';

const KEY = 'noStoreK3yA1b2C3d4E5f6G7h8I9j0K1l2M3n4O';
const ALICE = { login: 'alice', password: 'Al1ce-pw', apiKey: 'aliceKeyAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' };

let teampass2: ReplayServer;
let teampass3: TeamPass3Fake;

beforeAll(async () => {
  teampass2 = await startReplayServer({ apiKey: KEY });
  teampass3 = await startTeamPass3Fake({
    seed: {
      folders: [{ id: 1, title: 'Team' }],
      roles: [{ name: 'Devs', folders: { Team: 'W' } }],
      users: [{ ...ALICE, roles: ['Devs'] }],
      items: [{ id: 10, label: 'db', folder: 'Team', password: 'pw-db-seeded', login: 'admin' }],
    },
  });
});
afterAll(async () => {
  await teampass2.close();
  await teampass3.close();
});

/** A fetch that records the URL and the cache mode of every request. */
function recordingFetch(): { fetch: typeof fetch; sent: { url: string; cache: string | undefined }[] } {
  const sent: { url: string; cache: string | undefined }[] = [];
  return {
    sent,
    fetch: (input, init) => {
      const request = input instanceof Request ? input : undefined;
      sent.push({ url: String(request?.url ?? input), cache: init?.cache ?? request?.cache });
      return fetch(input, init);
    },
  };
}

describe.each(['TeamPass 2', 'TeamPass 3'] as const)('every request on %s', (server) => {
  it("asks for cache: 'no-store'", async () => {
    const { fetch, sent } = recordingFetch();
    const options: VaultClientOptions =
      server === 'TeamPass 2'
        ? { baseUrl: teampass2.url, auth: { apiKey: KEY, login: 'alice' }, fetch, retry: { retries: 0 } }
        : { baseUrl: teampass3.url, auth: ALICE, fetch, retry: { retries: 0 } };
    await detectDialect({ baseUrl: options.baseUrl, fetch });
    const vault = createVaultClient(options);
    await vault.folders.list();
    await vault.items.get(10);
    await vault.items.list(1).all();
    await vault.items.search('db');
    const { id } = await vault.items.create({ label: 'new one', password: 'pw-new', folderId: 1 });
    await vault.items.update(id, { login: 'me' });
    await vault.items.delete(id);
    await vault.items.get(999).catch(() => undefined);
    await vault.dispose();
    expect(sent.length).toBeGreaterThan(8);
    expect(sent.filter((request) => request.cache !== 'no-store')).toEqual([]);
  });
});
