/**
 * No key or token in a URL unless the server said it is TeamPass 2: a recording server answers
 * what identifies nothing (a web page, a 404, a proxy's refusal, a 503, a dropped connection), and
 * every URL it received is checked after the core has tried everything an app does (reads,
 * search, references, capabilities), with an API key alone, and with TeamPass 3's credentials. In
 * a browser, a CORS refusal of the keyless identification stops before any keyed request. The
 * TeamPass 2 fake, which identifies itself, is the control: there the key does travel in the
 * query, as TeamPass requires.
 */

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { detectDialect } from '../src/dialect.ts';
import { isVaultError, type VaultError } from '../src/errors.ts';
import { parseReference } from '../src/references/reference.ts';
import { resolveReferences } from '../src/references/resolve-references.ts';
import { searchItems } from '../src/search.ts';
import { type ReplayServer, startReplayServer } from '../src/testing/teampass-replay-server.ts';
import {
  RECORDING_MODES,
  type RecordingServer,
  startRecordingServer,
  startTeamPass3Fake,
  type TeamPass3Fake,
} from '../src/testing.ts';
import { vaultClientOf } from '../src/vault/client.ts';
import { createWireClient } from '../src/vault/wire-client.ts';
import { browserFetch } from './browser-fetch.ts';

const KEY = 'urlK3yA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7';
const PASSWORD = 'Pa55-word!';
const PAGE = 'https://vscode.dev';

/** The URLs that carry a secret: the key, the password, a token, or any `apikey=`. */
function secretUrls(urls: readonly string[]): string[] {
  return urls.filter(
    (url) =>
      /[?&]api_?key=/i.test(url) ||
      url.includes(KEY) ||
      url.includes(encodeURIComponent(PASSWORD)) ||
      /eyJ[\w-]*\.[\w-]+/.test(url) ||
      /token=/i.test(url),
  );
}

/** Everything an app does with a client; every failure is kept, none is thrown. */
async function useEverything(vault: ReturnType<typeof createWireClient>): Promise<unknown[]> {
  const failures: unknown[] = [];
  const attempt = async (work: () => Promise<unknown>) => {
    try {
      await work();
    } catch (error) {
      failures.push(error);
    }
  };
  await attempt(() => vault.readUserFolders({ login: 'alice' }));
  await attempt(() => vault.readItems({ ids: [1] }));
  await attempt(() => vault.readItems({ ids: [1, 2, 3] }));
  await attempt(() => vault.readFolders({ ids: [1] }));
  await attempt(() => vault.getItem(1));
  await attempt(() => searchItems(vault, { folderIds: [1, 2], text: 'prod db' }));
  await attempt(() => vault.findItems({ folderIds: [1], query: 'db' }));
  await attempt(() => vault.updateItemFields(1, { login: 'svc' }));
  await attempt(() => vault.deleteItems({ ids: [1] }));
  await attempt(async () => {
    const [result] = await resolveReferences(
      vaultClientOf(vault),
      [parseReference('vaultline://1/password')],
      {
        login: 'alice',
      },
    );
    if (result && !result.ok) throw result.error;
  });
  await attempt(() => vault.capabilities());
  await vault.dispose().catch(() => undefined);
  return failures;
}

let recorder: RecordingServer;
let teampass2: ReplayServer;
let teampass3: TeamPass3Fake;

beforeAll(async () => {
  [recorder, teampass2, teampass3] = await Promise.all([
    startRecordingServer(),
    startReplayServer({ apiKey: KEY }),
    startTeamPass3Fake({
      seed: {
        folders: [{ title: 'Shared' }],
        roles: [{ name: 'Devs', folders: { Shared: 'W' } }],
        users: [{ login: 'alice', password: PASSWORD, apiKey: KEY, roles: ['Devs'] }],
        items: [{ id: 1, label: 'db', folder: 'Shared', password: 's3cret' }],
      },
    }),
  ]);
});
afterAll(async () => {
  await Promise.all([recorder.close(), teampass2.close(), teampass3.close()]);
});
beforeEach(() => {
  recorder.urls.length = 0;
  teampass2.reset();
});

describe('a server that does not identify itself', () => {
  it.each(RECORDING_MODES)('answering %s never gets a key in a URL, and every call fails', async (mode) => {
    recorder.mode = mode;
    const vault = createWireClient({
      baseUrl: recorder.url,
      auth: KEY,
      timeoutMs: 2000,
      retry: { retries: 0 },
    });
    const failures = await useEverything(vault);
    expect(recorder.urls.length).toBeGreaterThan(0);
    expect(secretUrls(recorder.urls)).toEqual([]);
    // Only keyless identification requests reached it.
    expect(new Set(recorder.urls.map((url) => url.replace(/\?.*$/, '')))).toEqual(
      new Set(
        mode === 'drop'
          ? ['/api/index.php/info/version']
          : ['/api/index.php/info/version', '/api/index.php/openapi.json'],
      ),
    );
    // Every call but capabilities(), which answers the cautious defaults, marked undetected.
    expect(failures).toHaveLength(10);
    for (const failure of failures) {
      expect(isVaultError(failure)).toBe(true);
      expect(JSON.stringify((failure as VaultError).toJSON())).not.toContain(KEY);
    }
  });

  it('says that a web page is not the API, and that the key was not sent', async () => {
    recorder.mode = 'page';
    const vault = createWireClient({ baseUrl: recorder.url, auth: KEY });
    const error = (await vault.readUserFolders({ login: 'alice' }).catch((e: unknown) => e)) as VaultError;
    expect(error.code).toBe('invalid_response');
    expect(error.message).toBe(
      `read/userfolders: ${recorder.url}/api/index.php/info/version answered HTTP 200 with a web page, not the API's answer, so ${recorder.url} is not the vault's API as given; the key was not sent. Check the URL: the vault's base URL, the part before /api/index.php.`,
    );
    expect(await detectDialect({ baseUrl: recorder.url })).toMatchObject({
      detected: false,
      evidence: "no usable answer (HTTP 200 with a web page, not the API's answer)",
    });
  });

  it('with a password too: no key, password or token in a URL (the sign-in carries them in its body)', async () => {
    recorder.mode = 'page';
    const vault = createWireClient({
      baseUrl: recorder.url,
      auth: { login: 'alice', password: PASSWORD, apiKey: KEY },
      timeoutMs: 2000,
      retry: { retries: 0 },
    });
    await useEverything(vault);
    expect(secretUrls(recorder.urls)).toEqual([]);
  });

  it("reads the web app's address (…/index.php, with its query) as the vault's base URL", async () => {
    recorder.mode = 'page';
    const vault = createWireClient({ baseUrl: `${recorder.url}/index.php?page=items`, auth: KEY });
    expect(vault.baseUrl).toBe(recorder.url);
    await vault.readUserFolders({ login: 'alice' }).catch(() => undefined);
    expect(recorder.urls[0]).toBe('/api/index.php/info/version');
    expect(secretUrls(recorder.urls)).toEqual([]);

    const found = await detectDialect({ baseUrl: `${teampass3.url}/index.php` });
    expect(found).toMatchObject({ detected: true, dialect: 'teampass3' });
    const signedIn = createWireClient({
      baseUrl: `${teampass3.url}/index.php`,
      auth: { login: 'alice', password: PASSWORD, apiKey: KEY },
    });
    expect(signedIn.baseUrl).toBe(teampass3.url);
    expect((await signedIn.getItem(1)).label).toBe('db');
    await signedIn.dispose();
  });
});

describe('in a browser', () => {
  it('stops at a CORS refusal of the keyless identification: nothing keyed is sent, the error says CORS', async () => {
    const vault = createWireClient({
      baseUrl: teampass2.url,
      auth: KEY,
      fetch: browserFetch(PAGE),
      requestOrigin: PAGE,
      retry: { retries: 0 },
    });
    const error = (await vault.readUserFolders({ login: 'alice' }).catch((e: unknown) => e)) as VaultError;
    expect(error.code).toBe('network');
    expect(error.reason).toBe('cors');
    expect(error.message).toBe(
      `readUserFolders: the vault at ${teampass2.url} answers, but does not allow requests from ${PAGE} (CORS).`,
    );
    const failures = await useEverything(vault);
    expect(failures.every((failure) => isVaultError(failure, 'network'))).toBe(true);
    // The identification reached TeamPass 2 (a simple GET), and the keyless no-cors probe of its
    // root that tells CORS from a server that is down: nothing else did.
    expect(teampass2.identifications.length).toBeGreaterThan(0);
    expect(new Set(teampass2.requests.map((request) => request.url))).toEqual(new Set(['/']));
  });
});

describe('TeamPass 2, identified by its answer (the control)', () => {
  it('gets the key in the query, as it requires', async () => {
    const vault = createWireClient({ baseUrl: teampass2.url, auth: KEY });
    expect(await vault.readItems({ ids: [10] })).toHaveLength(1);
    const urls = teampass2.requests.map((request) => request.url);
    expect(secretUrls(urls)).toEqual([`/api/index.php/read/items/10?apikey=${KEY}`]);
  });

  it('gets it in the query when the user says so for the connection, without a probe', async () => {
    recorder.mode = 'page';
    const vault = createWireClient({
      baseUrl: recorder.url,
      auth: KEY,
      retry: { retries: 0 },
      legacy: { keyTransport: 'query' },
    });
    await vault.readItems({ ids: [1] }).catch(() => undefined);
    expect(recorder.urls).toEqual([`/api/index.php/read/items/1?apikey=${KEY}`]);
  });
});
