/**
 * No key, password or token in a URL the CLI sends, unless the server said it is TeamPass 2: a
 * recording server that is no vault (a web page, a 404, a proxy's refusal, a 503, a dropped
 * connection) receives `connect` (at the address a browser shows for TeamPass, …/index.php) and
 * every command that reads, and every URL it received is checked. TeamPass 3 at its web address
 * connects, read as its base URL.
 */

import { EXIT } from '@vaultline/protocol';
import {
  RECORDING_MODES,
  type RecordingServer,
  startRecordingServer,
  startTeamPass3Fake,
  type TeamPass3Fake,
} from '@vaultline/protocol/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type CliResult, runCli, tempHome } from './support/cli.ts';

const KEY = 'cliUrlKey0123456789abcdefghijklmnopqrstu';
const PASSWORD = 'Cli-Url-Pw-42!';

let recorder: RecordingServer;
let teampass3: TeamPass3Fake;
let home: { dir: string; cleanup: () => Promise<void> };

beforeAll(async () => {
  [recorder, teampass3, home] = await Promise.all([
    startRecordingServer(),
    startTeamPass3Fake({
      seed: {
        folders: [{ title: 'Shared' }],
        roles: [{ name: 'Devs', folders: { Shared: 'W' } }],
        users: [{ login: 'alice', password: PASSWORD, apiKey: KEY, roles: ['Devs'] }],
        items: [{ id: 1, label: 'db', folder: 'Shared', password: 's3cret' }],
      },
    }),
    tempHome(),
  ]);
});
afterAll(async () => {
  await Promise.all([recorder?.close(), teampass3?.close(), home?.cleanup()]);
});
beforeEach(() => {
  recorder.urls.length = 0;
});

/** The URLs that carry a secret: the key, the password, a token, or any `apikey=`. */
function secretUrls(urls: readonly string[]): string[] {
  return urls.filter(
    (url) =>
      /[?&]api_?key=/i.test(url) ||
      url.includes(KEY) ||
      url.includes(encodeURIComponent(PASSWORD)) ||
      /eyJ[\w-]*\.[\w-]+/.test(url),
  );
}

const noSecretIn = (result: CliResult) => {
  expect(result.stdout + result.stderr).not.toContain(KEY);
  expect(result.stdout + result.stderr).not.toContain(PASSWORD);
};

describe('a server that does not identify itself gets no key in a URL from the CLI', () => {
  it.each(RECORDING_MODES)(
    'answering %s: connect at …/index.php stops before asking for a key',
    async (mode) => {
      recorder.mode = mode;
      const connect = await runCli(home.dir, ['connect', `${recorder.url}/index.php`, '--login', 'alice'], {
        env: { VAULTLINE_API_KEY: KEY },
      });
      expect(connect.code).toBe(EXIT.vault);
      expect(connect.stderr).toContain(`Could not tell which API ${recorder.url}/index.php speaks`);
      expect(connect.stderr).toContain('Nothing was sent with a key.');
      noSecretIn(connect);
      expect(recorder.urls.length).toBeGreaterThan(0);
      // It asked the base URL's API, not /index.php/api/index.php.
      expect(recorder.urls[0]).toBe('/api/index.php/info/version');
      expect(secretUrls(recorder.urls)).toEqual([]);
    },
  );

  // One command per case: each run gives its budget to one CLI start (several seconds under load).
  const signIns = {
    'a key': { VAULTLINE_LOGIN: 'alice', VAULTLINE_API_KEY: KEY },
    'a key and a password': {
      VAULTLINE_LOGIN: 'alice',
      VAULTLINE_API_KEY: KEY,
      VAULTLINE_PASSWORD: PASSWORD,
    },
  } as const;
  const commands = [
    ['find', 'db'],
    ['get', '1'],
    ['read', 'vaultline://1/password'],
    ['run', '--', process.execPath, '-e', ''],
  ];
  it.each(
    (['page', 'busy', 'drop'] as const).flatMap((mode) =>
      Object.keys(signIns).flatMap((signIn) =>
        commands.map((args) => [mode, args[0], signIn, args] as const),
      ),
    ),
  )('answering %s: %s sends nothing with the key, with %s', async (mode, _name, signIn, args) => {
    recorder.mode = mode;
    // The second sign-in at the address a browser shows for TeamPass.
    const url = signIn === 'a key' ? recorder.url : `${recorder.url}/index.php`;
    const result = await runCli(home.dir, [...args], {
      env: {
        VAULTLINE_URL: url,
        ...signIns[signIn as keyof typeof signIns],
        ...(args[0] === 'run' ? { DB: 'vaultline://1/password' } : {}),
      },
    });
    expect({ args, code: result.code }).not.toEqual({ args, code: 0 });
    noSecretIn(result);
    expect(recorder.urls.length).toBeGreaterThan(0);
    expect(secretUrls(recorder.urls)).toEqual([]);
  });
});

describe("TeamPass 3 at its web app's address", () => {
  it('connects, reading …/index.php as the base URL, and says so', async () => {
    const connect = await runCli(
      home.dir,
      ['connect', `${teampass3.url}/index.php`, '--login', 'alice', '--name', 'tp3'],
      { env: { VAULTLINE_PASSWORD_TP3: PASSWORD, VAULTLINE_API_KEY_TP3: KEY } },
    );
    expect(connect.code).toBe(0);
    expect(connect.stderr).toContain(
      `Read ${teampass3.url}/index.php as the vault's base URL ${teampass3.url} (the API is under ${teampass3.url}/api/index.php).`,
    );
    noSecretIn(connect);
    expect(secretUrls(teampass3.requests.map((request) => request.url))).toEqual([]);
  });
});
