import { chmod, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EXIT, formatReference } from '@vaultline/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { MASK } from '../src/constants.ts';
import { type CliOptions, type CliResult, runCli, runInTerminal, tempHome } from './support/cli.ts';
import {
  ENTITY_LABEL,
  ENTITY_LOGIN,
  type SeededTeamPass3,
  startSeededTeamPass3,
  TOTP_SECRET,
  totpCode,
  USERS,
} from './support/teampass3.ts';
import { startsTimeout } from './support/timing.ts';

// A test here starts at most three processes unless it says how many (test/support/timing.ts).
vi.setConfig({ testTimeout: startsTimeout(3) });

const { alice, carol } = USERS;

let seeded: SeededTeamPass3;
let home: { dir: string; cleanup: () => Promise<void> };
/** Every output, with the secrets it was asked to print: scanned for leaks at the end. */
const outputs: { args: readonly string[]; text: string; allowed: string[] }[] = [];
/** Homes of the tests, scanned for leaks at the end (config files, token caches). */
const homes: string[] = [];
/** Personal access tokens the tests made: secrets too. */
const accessTokens: string[] = [];

beforeAll(async () => {
  seeded = await startSeededTeamPass3();
  home = await tempHome();
  homes.push(home.dir);
});
afterAll(async () => {
  await seeded?.fake.close();
  await home?.cleanup();
});

const id = (label: string) => seeded.items[label]!;
const pw = (label: string) => seeded.passwords[label]!;
const fake = () => seeded.fake;
/** Where the session token file of alice lives in a home (no XDG_RUNTIME_DIR in these runs). */
const cacheDir = (dir: string) => join(dir, '.cache', 'vaultline');

/** No credentials in the environment. */
const noSecrets = { VAULTLINE_PASSWORD: undefined, VAULTLINE_API_KEY: undefined };

/** alice's credentials in the environment, as in CI. */
function aliceEnv(): Record<string, string> {
  return { VAULTLINE_PASSWORD: alice.password, VAULTLINE_API_KEY: alice.apiKey };
}

async function cli(
  args: readonly string[],
  options: CliOptions & { allowed?: string[]; home?: string } = {},
): Promise<CliResult> {
  const result = await runCli(options.home ?? home.dir, args, {
    ...options,
    env: { ...aliceEnv(), ...options.env },
  });
  outputs.push({ args, text: result.stdout + result.stderr, allowed: options.allowed ?? [] });
  return result;
}

/** Sign-ins and requests a piece of work causes on the fake. */
async function counted<T>(work: () => Promise<T>): Promise<{ result: T; signIns: number; paths: string[] }> {
  const signIns = fake().signIns('alice');
  const before = fake().requests.length;
  const result = await work();
  return {
    result,
    signIns: fake().signIns('alice') - signIns,
    paths: fake()
      .requests.slice(before)
      .map((request) => `${request.method} ${request.url}`),
  };
}

async function readConfigFile(dir: string): Promise<unknown> {
  return JSON.parse(await readFile(join(dir, 'config', 'vaultline', 'config.json'), 'utf8'));
}

/**
 * The kernel keys (Linux's /proc/keys, descriptions only) that name a vault: where
 * @napi-rs/keyring's fallback puts an entry even when it then reports the keyring unusable.
 */
async function kernelKeysNaming(url: string): Promise<string[]> {
  const keys = await readFile('/proc/keys', 'utf8').catch(() => '');
  return keys.split('\n').filter((line) => line.includes(url));
}

async function tokenFiles(dir: string): Promise<string[]> {
  const names = await readdir(cacheDir(dir)).catch(() => [] as string[]);
  // servers.json says what kind of server each URL is (no secret); the rest are sealed tokens.
  return names
    .filter((name) => name.endsWith('.json') && name !== 'servers.json')
    .map((name) => join(cacheDir(dir), name));
}

/** A fresh home connected as alice with her credentials in the environment (the token cached in a file). */
async function connectedHome(): Promise<string> {
  const fresh = await tempHome();
  homes.push(fresh.dir);
  const connect = await cli(['connect', fake().url, '--login', 'alice'], { home: fresh.dir });
  expect(connect.stderr).toContain('Connected to');
  expect(connect.code).toBe(0);
  return fresh.dir;
}

describe('vaultline against TeamPass 3 (the fake, over HTTP)', () => {
  beforeEach(() => {
    fake().configure({ rateLimitPerMinute: 0, api: true });
  });

  describe('connect', () => {
    it('without a keychain, tells a script its choices before anything is read or sent', async () => {
      const fresh = await tempHome();
      homes.push(fresh.dir);
      const { result, signIns, paths } = await counted(() =>
        cli(['connect', fake().url, '--login', 'alice', '--password-stdin', '--key-stdin'], {
          home: fresh.dir,
          env: noSecrets,
          input: `${alice.password}\n${alice.apiKey}\n`,
        }),
      );
      // This machine has no OS keychain (no Secret Service on a D-Bus session, and the kernel
      // keyring refuses @napi-rs/keyring's fallback): connect says so, and what to do instead.
      expect(result.code).toBe(EXIT.auth);
      expect(result.stderr).toContain('No OS keychain is available here');
      expect(result.stderr).toContain('Nothing was sent.');
      expect(result.stderr).toContain('--store file (a file in');
      expect(result.stderr).toContain(
        '--store none (kept nowhere: each command asks for them on a terminal)',
      );
      expect(result.stderr).toContain('or set VAULTLINE_PASSWORD and VAULTLINE_API_KEY in the environment');
      expect(signIns).toBe(0);
      expect(paths.some((path) => path.includes('authorize'))).toBe(false);
      await expect(readFile(join(fresh.dir, 'config', 'vaultline', 'config.json'))).rejects.toThrow();
      // No entry was written for this vault where the keychain half works (the kernel keyring
      // takes the secret, then the write is reported refused, and the entry cannot be removed).
      expect(await kernelKeysNaming(fake().url)).toEqual([]);
    });

    it('reads the password and the key from stdin, signs in once to check, and keeps no secret in the config', async () => {
      const { result: connect, signIns } = await counted(() =>
        cli(
          ['connect', fake().url, '--login', 'alice', '--password-stdin', '--key-stdin', '--store', 'none'],
          {
            env: noSecrets,
            input: `${alice.password}\n${alice.apiKey}\n`,
          },
        ),
      );
      expect(connect.stderr).toContain(`Connected to ${fake().url} as alice (3 folders readable).`);
      expect(signIns).toBe(1);
      expect(connect.code).toBe(0);
      expect(connect.stderr).toContain(
        'Did not store the password and the API key (--store none): later commands ask for them on a terminal; scripts set VAULTLINE_PASSWORD and VAULTLINE_API_KEY.',
      );
      // The config keeps the URL, the login, the dialect, how to sign in and where the secrets
      // are kept: never a secret.
      expect(await readConfigFile(home.dir)).toEqual({
        connections: {
          default: {
            url: fake().url,
            login: 'alice',
            dialect: 'teampass3',
            server: 'teampass3',
            signIn: 'password',
            store: 'none',
          },
        },
      });
      const configPath = join(home.dir, 'config', 'vaultline', 'config.json');
      expect((await stat(configPath)).mode & 0o777).toBe(0o600);

      // The token of that sign-in is cached, sealed: the next command, with the same credentials
      // from the environment, signs in not at all and sends no probe (the dialect is stored).
      const {
        result: read,
        signIns: again,
        paths,
      } = await counted(() =>
        cli(['read', `vaultline://${id('api token')}/password`], { allowed: [pw('api token')] }),
      );
      expect(read.stdout).toBe(`${pw('api token')}\n`);
      expect(again).toBe(0);
      expect(paths.some((path) => path.includes('authorize') || path.includes('info/version'))).toBe(false);
      // Without them and without a terminal: the variables to set, and how to keep them instead.
      const bare = await cli(['read', `vaultline://${id('api token')}/password`], { env: noSecrets });
      expect(bare.code).toBe(EXIT.auth);
      expect(bare.stderr).toContain('this connection keeps no secrets (connect --store none)');
      expect(bare.stderr).toContain('Set VAULTLINE_PASSWORD and VAULTLINE_API_KEY');
    });

    it(
      'without a keychain, asks on a terminal where to keep what is typed; a sealed file serves later commands',
      async () => {
        const fresh = await tempHome();
        homes.push(fresh.dir);
        const { result, signIns } = await counted(() =>
          runInTerminal(
            fresh.dir,
            ['connect', fake().url, '--login', 'alice'],
            [
              { when: 'Choose 1 or 2: ', send: '3\r' },
              { when: 'Choose 1 or 2: ', send: '1\r' },
              { when: 'Password of alice at', send: `${alice.password}\r` },
              { when: 'API key of alice', send: `${alice.apiKey}\r` },
            ],
          ),
        );
        outputs.push({ args: ['connect (terminal)'], text: result.screen, allowed: [] });
        expect(result.screen).toContain('No OS keychain is available here');
        expect(result.screen).toContain('Where should the password and the API key be kept?');
        expect(result.screen).toContain('1) in a file sealed with a key of this machine');
        expect(result.screen).toContain('2) nowhere: each command asks for them on a terminal');
        expect(result.screen).toContain('API key of alice (from the profile page): ');
        expect(result.screen).toContain('Connected to');
        expect(signIns).toBe(1);
        // Typed, not echoed.
        expect(result.screen).not.toContain(alice.password);
        expect(result.screen).not.toContain(alice.apiKey);
        expect(result.code).toBe(0);
        expect(result.screen).toContain('Stored the password and the API key in');
        expect(result.screen).toContain('programs running as you can read both');
        expect((await readConfigFile(fresh.dir)) as object).toMatchObject({
          connections: { default: { store: 'file' } },
        });

        // The file and its key: private, apart, and no secret in clear (nor in base64).
        const secretsDir = join(fresh.dir, 'config', 'vaultline', 'secrets');
        const keyFile = join(fresh.dir, '.local', 'state', 'vaultline', 'secrets.key');
        const [name, ...others] = await readdir(secretsDir);
        expect(others).toEqual([]);
        const secretsFile = join(secretsDir, name!);
        expect((await stat(secretsDir)).mode & 0o777).toBe(0o700);
        expect((await stat(secretsFile)).mode & 0o777).toBe(0o600);
        expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
        const sealed = await readFile(secretsFile, 'utf8');
        for (const secret of [alice.password, alice.apiKey]) {
          expect(sealed).not.toContain(secret);
          expect(sealed).not.toContain(Buffer.from(secret).toString('base64'));
        }
        expect(sealed).not.toContain('alice');
        expect(await kernelKeysNaming(fake().url)).toEqual([]);

        // A later command, in a script, types nothing: the file opens, the cached token is reused.
        const later = await counted(() =>
          cli(['read', `vaultline://${id('api token')}/password`], {
            home: fresh.dir,
            env: noSecrets,
            allowed: [pw('api token')],
          }),
        );
        expect(later.result.stdout).toBe(`${pw('api token')}\n`);
        expect(later.signIns).toBe(0);
        // Without the cached token, the credentials from the file sign in.
        for (const file of await tokenFiles(fresh.dir)) await rm(file);
        const signedIn = await counted(() =>
          cli(['read', `vaultline://${id('api token')}/login`], { home: fresh.dir, env: noSecrets }),
        );
        expect(signedIn.result.stdout).toBe('ci-bot\n');
        expect(signedIn.signIns).toBe(1);

        // Another machine's key (the file copied elsewhere): it does not open, and says so.
        const key = await readFile(keyFile, 'utf8');
        await writeFile(keyFile, `${Buffer.alloc(32, 7).toString('base64')}\n`, { mode: 0o600 });
        for (const file of await tokenFiles(fresh.dir)) await rm(file);
        const elsewhere = await cli(['read', `vaultline://${id('api token')}/login`], {
          home: fresh.dir,
          env: noSecrets,
        });
        expect(elsewhere.code).toBe(EXIT.auth);
        expect(elsewhere.stderr).toContain(`The secrets file ${secretsFile} does not open here`);
        await writeFile(keyFile, key, { mode: 0o600 });

        // disconnect forgets the file too.
        const gone = await cli(['disconnect'], { home: fresh.dir, env: noSecrets });
        expect(gone.code).toBe(0);
        expect(gone.stderr).toContain('Forgot connection "default" and its secrets');
        expect(await readdir(secretsDir)).toEqual([]);
      },
      startsTimeout(6),
    );

    it('with --store none, each later command on a terminal asks, without echo, and reuses the session', async () => {
      const fresh = await tempHome();
      homes.push(fresh.dir);
      const typed = [
        { when: 'Password of alice at', send: `${alice.password}\r` },
        { when: 'API key of alice', send: `${alice.apiKey}\r` },
      ];
      const connect = await runInTerminal(
        fresh.dir,
        ['connect', fake().url, '--login', 'alice', '--store', 'none'],
        typed,
      );
      outputs.push({ args: ['connect --store none (terminal)'], text: connect.screen, allowed: [] });
      expect(connect.code).toBe(0);
      expect(connect.screen).not.toContain('Choose 1 or 2');
      const read = await counted(() =>
        runInTerminal(fresh.dir, ['read', `vaultline://${id('api token')}/login`], typed),
      );
      outputs.push({ args: ['read (terminal)'], text: read.result.screen, allowed: [] });
      expect(read.result.code).toBe(0);
      expect(read.result.screen).toContain('Password of alice at');
      expect(read.result.screen).toContain('ci-bot');
      expect(read.result.screen).not.toContain(alice.password);
      expect(read.result.screen).not.toContain(alice.apiKey);
      expect(read.signIns).toBe(0);
      await expect(readdir(join(fresh.dir, 'config', 'vaultline', 'secrets'))).rejects.toThrow();
      // disconnect asks for nothing: without the secrets, the token is forgotten unread.
      const gone = await runInTerminal(fresh.dir, ['disconnect'], []);
      expect(gone.code).toBe(0);
      expect(gone.screen).not.toContain('Password of');
      expect(await tokenFiles(fresh.dir)).toEqual([]);
    });

    it('on a terminal, Ctrl-C cancels (exit 130) and an empty answer is refused (exit 2), before any sign-in', async () => {
      const fresh = await tempHome();
      homes.push(fresh.dir);
      const args = ['connect', fake().url, '--login', 'alice'];
      const { result: cancelled, signIns } = await counted(() =>
        runInTerminal(fresh.dir, args, [{ when: 'Choose 1 or 2: ', send: '\x03' }]),
      );
      expect(cancelled.code).toBe(EXIT.signalBase + 2);
      expect(cancelled.screen).toContain('vaultline: Cancelled.');
      const atPassword = await runInTerminal(
        fresh.dir,
        [...args, '--store', 'none'],
        [{ when: 'Password of alice at', send: '\x03' }],
      );
      expect(atPassword.code).toBe(EXIT.signalBase + 2);
      const empty = await runInTerminal(
        fresh.dir,
        [...args, '--store', 'none'],
        [{ when: 'Password of alice at', send: '\r' }],
      );
      expect(empty.code).toBe(EXIT.usage);
      expect(empty.screen).toContain('vaultline: No password was typed.');
      expect(signIns).toBe(0);
      await expect(readFile(join(fresh.dir, 'config', 'vaultline', 'config.json'))).rejects.toThrow();
    });

    it('with the credentials in the environment, stores nothing but says where they come from', async () => {
      const dir = await connectedHome();
      const connect = outputs.at(-1)!.text;
      expect(connect).toContain(
        'The password and the API key were not stored: later commands read them from VAULTLINE_PASSWORD and VAULTLINE_API_KEY.',
      );
      expect(connect).toContain('Cached the session token');
      const files = await tokenFiles(dir);
      expect(files).toHaveLength(1);
      expect((await stat(files[0]!)).mode & 0o777).toBe(0o600);
      expect((await stat(cacheDir(dir))).mode & 0o777).toBe(0o700);
    });

    it('refuses a wrong password with TeamPass’s words and what to check, and saves nothing', async () => {
      const fresh = await tempHome();
      homes.push(fresh.dir);
      const wrong = 'Not-Alice-Pw-42';
      const { result, signIns } = await counted(() =>
        cli(['connect', fake().url, '--login', 'alice', '--password-stdin', '--store', 'none'], {
          home: fresh.dir,
          env: { VAULTLINE_PASSWORD: undefined },
          input: `${wrong}\n`,
        }),
      );
      expect(result.code).toBe(EXIT.auth);
      expect(signIns).toBe(0);
      expect(result.stderr).toContain('Login failed. (Invalid credentials)');
      expect(result.stderr).toContain(
        'Signing in was refused: check the login (VAULTLINE_LOGIN), the password (VAULTLINE_PASSWORD)',
      );
      expect(result.stderr).not.toContain(wrong);
      await expect(readFile(join(fresh.dir, 'config', 'vaultline', 'config.json'))).rejects.toThrow();
      // A later command with a wrong password in the environment says the same.
      const read = await cli(['read', `vaultline://${id('api token')}/password`], {
        home: fresh.dir,
        env: { VAULTLINE_URL: fake().url, VAULTLINE_LOGIN: 'alice', VAULTLINE_PASSWORD: wrong },
      });
      expect(read.code).toBe(EXIT.auth);
      expect(read.stderr).toContain('Signing in was refused');
      expect(read.stderr).not.toContain(wrong);
    });

    it('says what to do for a user whose API access is off, and for a site whose API is off', async () => {
      const off = await cli(['connect', fake().url, '--login', 'carol'], {
        env: { VAULTLINE_PASSWORD: carol.password, VAULTLINE_API_KEY: carol.apiKey },
      });
      expect(off.code).toBe(EXIT.auth);
      expect(off.stderr).toContain("The vault answers the same when the user's API access is switched off");
      fake().configure({ api: false });
      const site = await cli(['connect', fake().url, '--login', 'alice']);
      expect(site.code).toBe(EXIT.auth);
      expect(site.stderr).toContain('API usage is not allowed');
    });

    it('signs in with a personal access token where the site allows them (--pat-stdin, then the variable)', async () => {
      const fresh = await tempHome();
      homes.push(fresh.dir);
      const token = fake().createPersonalAccessToken('alice');
      accessTokens.push(token);
      const off = await cli(['connect', fake().url, '--login', 'alice', '--pat-stdin', '--store', 'none'], {
        home: fresh.dir,
        env: noSecrets,
        input: `${token}\n`,
      });
      expect(off.code).toBe(EXIT.auth);
      expect(off.stderr).toContain('OAuth2 API access is disabled');
      expect(off.stderr).not.toContain(token);
      fake().configure({ personalAccessTokens: true });
      try {
        const connect = await counted(() =>
          cli(['connect', fake().url, '--login', 'alice', '--pat-stdin', '--store', 'none'], {
            home: fresh.dir,
            env: noSecrets,
            input: `${token}\n`,
          }),
        );
        expect(connect.signIns).toBe(1);
        expect(connect.paths.filter((path) => path.includes('authorize'))).toEqual([
          expect.stringMatching(/POST .*authorizeToken$/),
        ]);
        expect(await readConfigFile(fresh.dir)).toEqual({
          connections: {
            default: {
              url: fake().url,
              login: 'alice',
              dialect: 'teampass3',
              server: 'teampass3',
              signIn: 'personal-access-token',
              store: 'none',
            },
          },
        });
        const read = await counted(() =>
          cli(['read', `vaultline://${id('api token')}/login`], {
            home: fresh.dir,
            env: { ...noSecrets, VAULTLINE_PERSONAL_ACCESS_TOKEN: token },
          }),
        );
        expect(read.result.stdout).toBe('ci-bot\n');
        expect(read.signIns).toBe(0);
      } finally {
        fake().configure({ personalAccessTokens: false });
      }
    });

    it('gives a named connection its own variables, never the default one’s', async () => {
      const fresh = await tempHome();
      homes.push(fresh.dir);
      const work = { VAULTLINE_PASSWORD_WORK: alice.password, VAULTLINE_API_KEY_WORK: alice.apiKey };
      const connect = await cli(['connect', fake().url, '--login', 'alice', '--name', 'work'], {
        home: fresh.dir,
        env: { ...work, VAULTLINE_PASSWORD: undefined, VAULTLINE_API_KEY: undefined },
      });
      expect(connect.code).toBe(0);
      expect(connect.stderr).toContain(
        'later commands read them from VAULTLINE_PASSWORD_WORK and VAULTLINE_API_KEY_WORK',
      );
      const read = await cli(['--connection', 'work', 'read', `vaultline://${id('api token')}/login`], {
        home: fresh.dir,
        env: work,
      });
      expect(read.stdout).toBe('ci-bot\n');
      // The default connection's secrets are not sent to a named one.
      const defaults = await cli(['--connection', 'work', 'read', `vaultline://${id('api token')}/login`], {
        home: fresh.dir,
      });
      expect(defaults.code).toBe(EXIT.auth);
      expect(defaults.stderr).toContain('No password or API key for');
      expect(defaults.stderr).toContain('VAULTLINE_PASSWORD_WORK and VAULTLINE_API_KEY_WORK');
    });

    it('asks what the vault needs: a password here, so an API key alone is not enough', async () => {
      const bare = await tempHome();
      homes.push(bare.dir);
      const keyOnly = await cli(['read', `vaultline://${id('api token')}/login`], {
        env: { VAULTLINE_URL: fake().url, VAULTLINE_LOGIN: 'alice', VAULTLINE_PASSWORD: undefined },
        home: bare.dir,
      });
      expect(keyOnly.code).toBe(EXIT.auth);
      expect(keyOnly.stderr).toContain('missing a password');
      expect(keyOnly.stderr).toContain('This vault signs in with a password: set VAULTLINE_PASSWORD');
      const flags = await cli(['connect', fake().url, '--login', 'alice', '--pat-stdin', '--key-stdin'], {
        input: 'x\n',
      });
      expect(flags.code).toBe(EXIT.usage);
    });
  });

  describe('the session token', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await connectedHome();
    });

    it(
      'is reused by every command: no sign-in across find, get, read, run and inject',
      async () => {
        const { signIns, paths } = await counted(async () => {
          const find = await cli(['find', 'bench', '--json'], { home: dir });
          expect(find.code).toBe(0);
          expect(JSON.parse(find.stdout)).toHaveLength(10);
          const get = await cli(['get', String(id('prod db')), '--json'], { home: dir });
          expect(JSON.parse(get.stdout)).toMatchObject({
            login: 'postgres',
            path: ['Engineering', 'Databases'],
          });
          const read = await cli(['read', 'vaultline://Engineering/Databases/prod%20db/password'], {
            home: dir,
            allowed: [pw('prod db')],
          });
          expect(read.stdout).toBe(`${pw('prod db')}\n`);
          const run = await cli(
            ['run', '--', process.execPath, '-e', 'process.exit(process.env.A ? 0 : 3)'],
            {
              home: dir,
              env: { A: `vaultline://${id('api token')}/password` },
            },
          );
          expect(run.code).toBe(0);
          const inject = await cli(['inject'], {
            home: dir,
            input: `token: vaultline://${id('api token')}/password\n`,
            allowed: [pw('api token')],
          });
          expect(inject.stdout).toBe(`token: ${pw('api token')}\n`);
        });
        expect(signIns).toBe(0);
        expect(paths.filter((path) => path.includes('authorize'))).toEqual([]);
        // No probe either: the dialect is stored.
        expect(paths.filter((path) => path.includes('info/version'))).toEqual([]);
      },
      startsTimeout(5),
    );

    it(
      'from the environment alone (CI): one sign-in, then one request per read (no probe, no rights read)',
      async () => {
        const ci = await tempHome();
        homes.push(ci.dir);
        const env = { VAULTLINE_URL: fake().url, VAULTLINE_LOGIN: 'alice' };
        const first = await counted(() =>
          cli(['read', `vaultline://${id('api token')}/login`], { home: ci.dir, env }),
        );
        expect(first.result.stdout).toBe('ci-bot\n');
        expect(first.signIns).toBe(1);
        for (let i = 0; i < 3; i++) {
          const next = await counted(() =>
            cli(['read', `vaultline://${id('api token')}/login`], { home: ci.dir, env }),
          );
          expect(next.result.stdout).toBe('ci-bot\n');
          expect(next.signIns).toBe(0);
          // The server enforces alice's rights on a read by id: the item alone is read.
          expect(next.paths).toEqual([expect.stringMatching(/^GET \/api\/index\.php\/item\/get\?/)]);
        }
      },
      startsTimeout(4),
    );

    it('expired on the server: the command signs in again once, then the new token is reused', async () => {
      fake().clock.advance(61 * 60_000);
      const again = await counted(() => cli(['read', `vaultline://${id('api token')}/login`], { home: dir }));
      expect(again.result.stdout).toBe('ci-bot\n');
      expect(again.signIns).toBe(1);
      const next = await counted(() => cli(['read', `vaultline://${id('api token')}/login`], { home: dir }));
      expect(next.signIns).toBe(0);
    });

    it('expired by its own exp: not even sent, replaced by one sign-in', async () => {
      // Tokens issued while the server's clock is two hours behind are already expired by ours.
      const now = fake().clock.now();
      fake().clock.set(now - 2 * 60 * 60_000);
      const stale = await tempHome();
      homes.push(stale.dir);
      const env = { VAULTLINE_URL: fake().url, VAULTLINE_LOGIN: 'alice' };
      expect(
        (await cli(['read', `vaultline://${id('api token')}/login`], { home: stale.dir, env })).code,
      ).toBe(0);
      fake().clock.set(now);
      const before = await readFile((await tokenFiles(stale.dir))[0]!, 'utf8');
      const replaced = await counted(() =>
        cli(['read', `vaultline://${id('api token')}/login`], { home: stale.dir, env }),
      );
      expect(replaced.result.stdout).toBe('ci-bot\n');
      expect(replaced.signIns).toBe(1);
      // The expired token was never sent: the first request was the sign-in.
      expect(replaced.paths[0]).toMatch(/authorize$/);
      expect(await readFile((await tokenFiles(stale.dir))[0]!, 'utf8')).not.toBe(before);
      expect(
        (await counted(() => cli(['read', `vaultline://${id('api token')}/login`], { home: stale.dir, env })))
          .signIns,
      ).toBe(0);
    });

    it('revoked: one sign-in again', async () => {
      fake().revokeSessions('alice');
      const again = await counted(() => cli(['read', `vaultline://${id('api token')}/login`], { home: dir }));
      expect(again.result.code).toBe(0);
      expect(again.signIns).toBe(1);
    });

    it('keeps working when the site switches its API off (tokens already issued keep working)', async () => {
      fake().configure({ api: false });
      const read = await counted(() => cli(['read', `vaultline://${id('api token')}/login`], { home: dir }));
      expect(read.result.stdout).toBe('ci-bot\n');
      expect(read.signIns).toBe(0);
    });

    it(
      'is sealed: other credentials cannot use the file, a tampered or loose file is ignored and replaced',
      async () => {
        const [file] = await tokenFiles(dir);
        const sealed = await readFile(file!, 'utf8');
        for (const token of fake().tokens('alice')) expect(sealed).not.toContain(token);
        expect(sealed).not.toContain('alice');
        expect(sealed).not.toContain(fake().url.replace('http://', ''));

        // Another API key for the same login: the file does not open, so the token is not sent;
        // signing in with that key is refused.
        const other = await counted(() =>
          cli(['read', `vaultline://${id('api token')}/login`], {
            home: dir,
            env: { VAULTLINE_API_KEY: carol.apiKey },
          }),
        );
        expect(other.result.code).toBe(EXIT.auth);
        expect(other.paths).toEqual([expect.stringMatching(/POST .*authorize$/)]);
        expect(await readFile(file!, 'utf8')).toBe(sealed);

        // A changed byte: ignored, one sign-in, a new file.
        const record = JSON.parse(sealed) as { sealed: string };
        const bytes = Buffer.from(record.sealed, 'base64url');
        bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 1;
        await writeFile(file!, JSON.stringify({ ...record, sealed: bytes.toString('base64url') }), {
          mode: 0o600,
        });
        const tampered = await counted(() =>
          cli(['read', `vaultline://${id('api token')}/login`], { home: dir }),
        );
        expect(tampered.result.stdout).toBe('ci-bot\n');
        expect(tampered.signIns).toBe(1);
        expect(await readFile(file!, 'utf8')).not.toContain(bytes.toString('base64url'));

        // Readable by others: not trusted, replaced by a private one.
        await chmod(file!, 0o644);
        const loose = await counted(() =>
          cli(['read', `vaultline://${id('api token')}/login`], { home: dir }),
        );
        expect(loose.signIns).toBe(1);
        expect((await stat(file!)).mode & 0o777).toBe(0o600);

        // Not JSON at all: a cache miss, not an error.
        await writeFile(file!, 'garbage', { mode: 0o600 });
        const garbage = await counted(() =>
          cli(['read', `vaultline://${id('api token')}/login`], { home: dir }),
        );
        expect(garbage.result.code).toBe(0);
        expect(garbage.signIns).toBe(1);
      },
      startsTimeout(4),
    );

    it('is not cached in a directory others may write', async () => {
      const shared = await tempHome();
      homes.push(shared.dir);
      const open = join(shared.dir, 'shared-cache');
      await mkdir(open, { mode: 0o777 });
      await chmod(open, 0o777);
      const env = { VAULTLINE_URL: fake().url, VAULTLINE_LOGIN: 'alice', VAULTLINE_CACHE_DIR: open };
      const read = await cli(['read', `vaultline://${id('api token')}/login`], { home: shared.dir, env });
      expect(read.code).toBe(0);
      // Ours: closed to others, then used (the token, and what kind of server the URL is).
      expect((await stat(open)).mode & 0o777).toBe(0o700);
      expect(await readdir(open)).toHaveLength(2);
      expect(await readdir(open)).toContain('servers.json');
    });

    it('disconnect signs the session out and forgets the token', async () => {
      const other = await connectedHome();
      const [file] = await tokenFiles(other);
      expect(file).toBeDefined();
      const live = fake()
        .sessions('alice')
        .filter((session) => session.revokedAt === undefined).length;
      const gone = await cli(['disconnect'], { home: other });
      expect(gone.code).toBe(0);
      expect(gone.stderr).toContain('Forgot connection "default"; signed its session out.');
      expect(
        fake()
          .sessions('alice')
          .filter((session) => session.revokedAt === undefined),
      ).toHaveLength(live - 1);
      expect(await tokenFiles(other)).toEqual([]);
      expect(await readConfigFile(other)).toEqual({ connections: {} });
    });
  });

  describe('commands', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await connectedHome();
    });

    it('run: references resolve into the child’s environment only, masked in its output, without the credentials', async () => {
      const child = [
        'const e = process.env;',
        'console.log([e.DB, e.TOKEN, e.OTP.length].join(" "));',
        'console.error(JSON.stringify([e.VAULTLINE_PASSWORD, e.VAULTLINE_API_KEY, e.VAULTLINE_PERSONAL_ACCESS_TOKEN]));',
        'require("node:fs").writeFileSync(process.argv[1], e.DB + "|" + e.TOKEN);',
      ].join('\n');
      const proof = join(dir, 'child-saw.txt');
      const refs: Record<string, string> = {
        DB: 'vaultline://Engineering/Databases/prod%20db/password',
        TOKEN: `vaultline://${id('api token')}/password`,
        OTP: `vaultline://${id('github 2fa')}/otp`,
      };
      for (let i = 0; i < 7; i++) refs[`BENCH_${i}`] = `vaultline://${id(`bench ${i}`)}/password`;
      const { result, signIns } = await counted(() =>
        cli(['run', '--', process.execPath, '-e', child, proof], { home: dir, env: refs }),
      );
      expect(result.code).toBe(0);
      expect(signIns).toBe(0);
      expect(result.stdout).toBe(`${MASK} ${MASK} 6\n`);
      expect(result.stderr).toBe('[null,null,null]\n');
      expect(await readFile(proof, 'utf8')).toBe(`${pw('prod db')}|${pw('api token')}`);
    });

    it(
      'read …/otp prints the current one-time code, get --field otp too, --json with the seconds left',
      async () => {
        const code = totpCode(TOTP_SECRET, fake().clock.now());
        const read = await cli(['read', `vaultline://${id('github 2fa')}/otp`], {
          home: dir,
          allowed: [code],
        });
        expect(read.code).toBe(0);
        expect(read.stdout).toBe(`${code}\n`);
        const get = await cli(['get', String(id('github 2fa')), '--field', 'otp'], {
          home: dir,
          allowed: [code],
        });
        expect(get.stdout).toBe(`${code}\n`);
        const json = await cli(['read', `vaultline://${id('github 2fa')}/otp`, '--json'], {
          home: dir,
          allowed: [code],
        });
        expect(JSON.parse(json.stdout)).toEqual({
          reference: `vaultline://${id('github 2fa')}/otp`,
          value: code,
          secondsLeft: expect.any(Number),
        });
        const none = await cli(['read', `vaultline://${id('api token')}/otp`], { home: dir });
        expect(none.code).toBe(EXIT.reference);
        expect(none.stderr).toContain('has no one-time code');
      },
      startsTimeout(4),
    );

    it('shows labels with entities and emoji as typed, finds them and reads them by path', async () => {
      const find = await cli(['find', 'Jerry', '--json'], { home: dir });
      expect(JSON.parse(find.stdout)).toEqual([
        expect.objectContaining({
          id: id(ENTITY_LABEL),
          label: ENTITY_LABEL,
          path: ['Shared'],
          login: ENTITY_LOGIN,
        }),
      ]);
      const table = await cli(['find', '🦄'], { home: dir });
      expect(table.stdout).toContain(ENTITY_LABEL);
      // TeamPass stores `caf&eacute;` and `m&uuml;ller`: found, shown and read as typed.
      for (const word of ['café', 'müller']) {
        const accented = await cli(['find', word, '--json'], { home: dir });
        expect(JSON.parse(accented.stdout).map((item: { id: number }) => item.id)).toEqual([
          id(ENTITY_LABEL),
        ]);
      }
      const login = await cli(['read', `vaultline://${id(ENTITY_LABEL)}/login`], { home: dir });
      expect(login.stdout).toBe(`${ENTITY_LOGIN}\n`);
      const reference = formatReference({
        kind: 'path',
        folders: ['Shared'],
        label: ENTITY_LABEL,
        field: 'password',
      });
      const read = await cli(['read', reference], { home: dir, allowed: [pw(ENTITY_LABEL)] });
      expect(read.code).toBe(0);
      expect(read.stdout).toBe(`${pw(ENTITY_LABEL)}\n`);
    });

    it('says TeamPass 3 has no attachments (unsupported), and what alice may not read', async () => {
      const file = await cli(['read', `vaultline://${id('prod db')}/file:id_rsa`], { home: dir });
      expect(file.code).toBe(EXIT.reference);
      expect(file.stderr).toContain('this vault has no attachments');
      const ops = await cli(['read', `vaultline://${id('ops secret')}/password`], { home: dir });
      expect(ops.code).toBe(EXIT.reference);
      expect(ops.stderr).not.toContain(pw('ops secret'));
      const path = await cli(['read', 'vaultline://Ops/ops%20secret/password'], { home: dir });
      expect(path.code).toBe(EXIT.reference);
    });

    it('says who sets the rights when the user’s API permission refuses a read', async () => {
      fake().setApiFlags('alice', { read: false });
      try {
        const read = await cli(['read', `vaultline://${id('api token')}/password`], { home: dir });
        expect(read.code).toBe(EXIT.auth);
        expect(read.stderr).toContain('Access denied: insufficient permissions for this action (HTTP 403).');
        expect(read.stderr).toContain('an API permission (create, read, update, delete) does not allow this');
      } finally {
        fake().setApiFlags('alice', { read: true });
      }
    });

    it('says a locked account is locked for a while, not that the credentials are wrong', async () => {
      const fresh = await tempHome();
      homes.push(fresh.dir);
      fake().configure({ failedSignInsPerLogin: 1, lockMinutes: 1 });
      const env = {
        VAULTLINE_URL: fake().url,
        VAULTLINE_LOGIN: 'carol',
        VAULTLINE_PASSWORD: carol.password,
        VAULTLINE_API_KEY: carol.apiKey,
      };
      try {
        // carol's API access is off: her first sign-in fails, and locks her login.
        const refused = await cli(['read', `vaultline://${id('api token')}/login`], { home: fresh.dir, env });
        expect(refused.stderr).toContain('Signing in was refused');
        const locked = await cli(['read', `vaultline://${id('api token')}/login`], { home: fresh.dir, env });
        expect(locked.code).toBe(EXIT.auth);
        expect(locked.stderr).toContain('Login failed. (Account temporarily locked)');
        expect(locked.stderr).toContain('locked the account (or this address) for a while');
        expect(locked.stderr).toContain('try again later, or ask a vault administrator to unlock it');
        expect(locked.stderr).not.toContain('check the login');
      } finally {
        fake().configure({ failedSignInsPerLogin: 0 });
        fake().clock.advance(61_000);
      }
    });

    it('says to use https:// when the vault requires HTTPS, not that a right is missing', async () => {
      fake().configure({ requireHttps: true });
      try {
        const read = await cli(['read', `vaultline://${id('api token')}/login`], { home: dir });
        expect(read.code).toBe(EXIT.auth);
        expect(read.stderr).toContain('HTTPS is required for API requests');
        expect(read.stderr).toContain('accepts API requests over HTTPS only: use its https:// address');
        expect(read.stderr).not.toContain('folder right');
      } finally {
        fake().configure({ requireHttps: false });
      }
    });

    it(
      'a 429 storm ends in a clear error with the wait, without hammering the server',
      async () => {
        // At five seconds into a minute: TeamPass asks to wait 55 s, longer than a command waits.
        const now = fake().clock.now();
        fake().clock.advance(60_000 - (now % 60_000) + 5_000);
        fake().configure({ rateLimitPerMinute: 3 });
        const results: CliResult[] = [];
        const { paths } = await counted(async () => {
          for (let i = 0; i < 4; i++)
            results.push(
              await cli(['read', `vaultline://${id(`bench ${i}`)}/password`], {
                home: dir,
                allowed: [pw(`bench ${i}`)],
              }),
            );
        });
        const limited = results.filter((result) => result.code === EXIT.vault);
        expect(limited.length).toBeGreaterThan(0);
        expect(limited[0]!.stderr).toContain('Rate limit exceeded');
        expect(limited[0]!.stderr).toContain('The server asks to wait 55 s.');
        expect(limited[0]!.stderr).toContain(
          'not waited: the wait asked is longer than the 30 s this client waits',
        );
        expect(limited[0]!.stderr).not.toContain('after 0 waits');
        // Each limited command gave up at the first 429 (longer than it waits): at most a few requests each.
        expect(paths.length).toBeLessThanOrEqual(4 * 3);
        fake().configure({ rateLimitPerMinute: 0 });
      },
      startsTimeout(4),
    );
  });

  it('never prints or stores a password, key or token that was not asked for', async () => {
    const tokens = [...fake().tokens(), ...accessTokens];
    expect(tokens.length).toBeGreaterThan(3);
    expect(outputs.length).toBeGreaterThan(30);
    for (const { args, text, allowed } of outputs) {
      const leaked = [...seeded.secrets, ...tokens].filter(
        (secret) => !allowed.includes(secret) && text.includes(secret),
      );
      expect({ args, leaked }).toEqual({ args, leaked: [] });
    }
    // Config files and token caches: no password, key or token in clear anywhere.
    for (const dir of homes) {
      for (const file of await filesUnder(dir)) {
        const text = await readFile(file, 'utf8');
        const leaked = [alice.password, alice.apiKey, carol.password, carol.apiKey, ...tokens].filter(
          (secret) => text.includes(secret),
        );
        expect({ file, leaked }).toEqual({ file, leaked: [] });
      }
    }
  });
});

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

// Keep the temp homes tidy.
afterAll(async () => {
  for (const dir of homes) await rm(dir, { recursive: true, force: true });
});
