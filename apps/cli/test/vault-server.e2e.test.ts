import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { EXIT } from '@vaultline/protocol';
import { sealItemSecret } from '@vaultline/vault-server/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MASK } from '../src/constants.ts';
import { readEnvironment } from '../src/env.ts';
import { processOutput } from '../src/output.ts';
import { createProgram } from '../src/program.ts';
import { leaks, recordingCli, runCli, tempHome } from './support/cli.ts';
import { HOSTILE_LABEL, type SeededVault, startSeededVault } from './support/seed.ts';
import { startsTimeout } from './support/timing.ts';

// A test here starts at most three processes unless it says how many (test/support/timing.ts).
vi.setConfig({ testTimeout: startsTimeout(3) });

let seeded: SeededVault;
let home: { dir: string; cleanup: () => Promise<void> };
/** Every result, with the secrets it was asked to print: scanned for leaks at the end. */

beforeAll(async () => {
  seeded = await startSeededVault();
  home = await tempHome();
});
afterAll(async () => {
  await seeded?.vault.close();
  await home?.cleanup();
});

function asAlice(): Record<string, string> {
  return { VAULTLINE_URL: seeded.vault.url, VAULTLINE_API_KEY: seeded.aliceKey, VAULTLINE_LOGIN: 'alice' };
}

const { cli, runs: outputs } = recordingCli(() => home.dir, asAlice);

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const pw = (label: string) => seeded.passwords[label]!;
const id = (label: string) => seeded.items[label]!;

describe('vaultline against the Vaultline server', () => {
  it('has generated --help for every command', async () => {
    // Every command's help, from the command tree itself: no process per command.
    const program = createProgram({ env: readEnvironment({}), output: processOutput() });
    const names = program.commands.map((command) => command.name());
    expect(names).toEqual(
      expect.arrayContaining(['connect', 'disconnect', 'find', 'get', 'read', 'run', 'inject', 'completion']),
    );
    for (const command of program.commands)
      expect(command.helpInformation()).toContain(`Usage: vaultline ${command.name()}`);
    // The executable prints it and exits as documented: two starts.
    const root = await cli(['--help']);
    expect(root.code).toBe(0);
    expect(root.stdout).toContain('Exit codes:');
    const usage = await cli(['read']);
    expect(usage.code).toBe(EXIT.usage);
    expect(usage.stderr).toContain("missing required argument 'reference'");
  });

  it('reads several references in one batch with --json, in their order, and needs --json for it', async () => {
    const refs = [
      `vaultline://${id('api token')}/password`,
      `vaultline://${id('prod db')}/password`,
      `vaultline://${id('api token')}/login`,
    ];
    const result = await cli(['read', '--json', ...refs], { allowed: [pw('api token'), pw('prod db')] });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([
      { reference: refs[0], value: pw('api token') },
      { reference: refs[1], value: pw('prod db') },
      { reference: refs[2], value: 'ci-bot' },
    ]);
    const plain = await cli(['read', ...refs]);
    expect(plain.code).toBe(EXIT.usage);
    expect(plain.stdout).toBe('');
    expect(plain.stderr).toContain('Several references need --json');
    const missing = await cli(['read', '--json', refs[0]!, 'vaultline://999999/password']);
    expect(missing.code).toBe(EXIT.reference);
    expect(missing.stdout).toBe('');
  });

  describe('connect', () => {
    it('stores URL and login in the config file, never the key', async () => {
      const result = await cli(['connect', seeded.vault.url, '--login', 'alice'], {
        env: { VAULTLINE_URL: undefined, VAULTLINE_LOGIN: undefined },
      });
      expect(result.code).toBe(0);
      expect(result.stderr).toContain('Connected to');
      const path = join(home.dir, 'config', 'vaultline', 'config.json');
      const config = JSON.parse(await readFile(path, 'utf8'));
      // The dialect connect detected goes back to the client, so that commands send no probe.
      expect(config).toEqual({
        connections: {
          default: {
            url: seeded.vault.url,
            login: 'alice',
            dialect: 'legacy',
            server: 'vaultline',
            signIn: 'api-key',
          },
        },
      });
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      expect((await readFile(path, 'utf8')).includes(seeded.aliceKey)).toBe(false);
      // The stored URL and login are used; the key comes from the environment.
      const read = await cli(['read', `vaultline://${id('api token')}/login`], {
        env: { VAULTLINE_URL: undefined, VAULTLINE_LOGIN: undefined },
      });
      expect(read.stdout).toBe('ci-bot\n');
    });

    it(
      'says clearly that there is no keychain here, before sending the key, and keeps it in a sealed file when asked',
      async () => {
        const args = ['connect', seeded.vault.url, '--login', 'alice', '--name', 'kc', '--key-stdin'];
        const noEnv = { VAULTLINE_API_KEY: undefined, VAULTLINE_URL: undefined, VAULTLINE_LOGIN: undefined };
        const refused = await cli(args, { env: noEnv, input: `${seeded.aliceKey}\n` });
        expect(refused.code).toBe(EXIT.auth);
        expect(refused.stderr).toContain('No OS keychain is available here');
        expect(refused.stderr).toContain('Nothing was sent.');
        expect(refused.stderr).toContain('--store file');
        expect(refused.stderr).toContain('or set VAULTLINE_API_KEY_KC in the environment');
        const path = join(home.dir, 'config', 'vaultline', 'config.json');
        expect(JSON.parse(await readFile(path, 'utf8')).connections.kc).toBeUndefined();
        // With --store file: kept sealed, and a later command needs no variable.
        const kept = await cli([...args, '--store', 'file'], { env: noEnv, input: `${seeded.aliceKey}\n` });
        expect(kept.code).toBe(0);
        expect(kept.stderr).toContain('Stored the API key in');
        const secrets = join(home.dir, 'config', 'vaultline', 'secrets');
        const [file] = await readdir(secrets);
        expect(await readFile(join(secrets, file!), 'utf8')).not.toContain(seeded.aliceKey);
        const read = await cli(['--connection', 'kc', 'read', `vaultline://${id('api token')}/login`], {
          env: noEnv,
        });
        expect(read.stdout).toBe('ci-bot\n');
        // disconnect forgets it, the sealed key with it.
        const gone = await cli(['disconnect', '--name', 'kc']);
        expect(gone.code).toBe(0);
        expect(gone.stderr).toContain('Forgot connection "kc" and its secrets');
        expect(await readdir(secrets)).toEqual([]);
        const config = JSON.parse(await readFile(path, 'utf8'));
        expect(config.connections.kc).toBeUndefined();
        expect((await cli(['disconnect', '--name', 'kc'])).code).toBe(EXIT.auth);
      },
      startsTimeout(5),
    );

    it('refuses a wrong key, an unknown login and a bad URL without printing the key', async () => {
      const wrong = await cli(['connect', seeded.vault.url, '--login', 'alice', '--name', 'x'], {
        env: { VAULTLINE_API_KEY_X: 'wrong-key-Zz0123456789' },
      });
      expect(wrong.code).toBe(EXIT.auth);
      expect(wrong.stderr).toContain('refused the API key');
      expect(wrong.stderr).not.toContain('wrong-key-Zz0123456789');
      const nobody = await cli(['connect', seeded.vault.url, '--login', 'nobody', '--name', 'x'], {
        env: { VAULTLINE_API_KEY_X: seeded.vault.adminKey },
      });
      expect(nobody.code).toBe(EXIT.auth);
      expect(nobody.stderr).toContain('no user "nobody"');
      const url = await cli(['connect', 'ftp://vault', '--login', 'alice', '--name', 'x'], {
        env: { VAULTLINE_API_KEY_X: seeded.aliceKey },
      });
      expect(url.code).toBe(EXIT.usage);
    });

    it(
      'uses a named connection chosen by --connection or by the reference, with its own key variable',
      async () => {
        const named = await cli(['connect', seeded.vault.url, '--login', 'alice', '--name', 'work'], {
          env: { VAULTLINE_API_KEY: undefined, VAULTLINE_API_KEY_WORK: seeded.aliceKey },
        });
        expect(named.code).toBe(0);
        expect(named.stderr).toContain('VAULTLINE_API_KEY_WORK');
        const read = await cli(['--connection', 'work', 'read', `vaultline://${id('api token')}/login`], {
          env: {
            VAULTLINE_API_KEY: undefined,
            VAULTLINE_URL: undefined,
            VAULTLINE_API_KEY_WORK: seeded.aliceKey,
          },
        });
        expect(read.stdout).toBe('ci-bot\n');
        const script =
          "console.log(process.env.S === undefined, Object.keys(process.env).filter((k) => k.startsWith('VAULTLINE_API_KEY')).length)";
        const run = await cli(['run', '--', process.execPath, '-e', script], {
          env: { VAULTLINE_API_KEY_WORK: seeded.aliceKey, S: `vaultline://work@${id('api token')}/login` },
        });
        expect(run.code).toBe(0);
        expect(run.stdout).toBe('false 0\n');
        const missing = await cli(['read', `vaultline://work@${id('api token')}/login`], {
          env: { VAULTLINE_API_KEY_WORK: undefined },
        });
        expect(missing.code).toBe(EXIT.auth);
        expect(missing.stderr).toContain('VAULTLINE_API_KEY_WORK');
        const unknown = await cli(['read', `vaultline://nowhere@${id('api token')}/login`]);
        expect(unknown.code).toBe(EXIT.auth);
        expect(unknown.stderr).toContain('No connection named "nowhere"');
      },
      startsTimeout(5),
    );

    it('explains how to connect when there is no connection', async () => {
      const empty = await tempHome();
      try {
        const result = await runCli(empty.dir, ['read', 'vaultline://1/password']);
        expect(result.code).toBe(EXIT.auth);
        expect(result.stderr).toContain('vaultline connect');
        expect(result.stderr).toContain('VAULTLINE_URL');
      } finally {
        await empty.cleanup();
      }
    });
  });

  describe('find, get, read', () => {
    it('finds items the login may read, with references and no passwords', async () => {
      const json = await cli(['find', 'db', '--json']);
      expect(json.code).toBe(0);
      const rows = JSON.parse(json.stdout) as {
        id: number;
        label: string;
        path: string[];
        reference: string;
      }[];
      expect(rows.map((row) => row.label)).toEqual(['prod db']);
      expect(rows[0]).toMatchObject({
        path: ['Engineering', 'Databases'],
        reference: `vaultline://${id('prod db')}/password`,
      });
      const none = await cli(['find', 'ops']);
      expect(none.stdout).toBe('');
      expect(none.stderr).toContain('No item has every word of "ops"');
      const text = await cli(['find', 'evil']);
      expect(text.stdout).toContain('ID');
      expect(text.stdout).not.toContain('\u001b');
      expect(text.stdout).not.toContain('\u202e');
      expect(text.stdout).toContain('\\u{1b}[31mred');
    });

    it('finds by words in any order in the login, URL and folder path, typed as separate arguments', async () => {
      // "prod db" holds none of them in its label: login postgres, postgres://db.internal:5432, Databases.
      const json = await cli(['find', 'internal', 'POSTGRES', 'databases', '--json']);
      expect(json.code).toBe(0);
      expect((JSON.parse(json.stdout) as { label: string }[]).map((row) => row.label)).toEqual(['prod db']);
    });

    it('finds by login, URL and path with a key of the teampass profile too, which gets label search only', async () => {
      // The server answers such a key's find/item as TeamPass does (labels only): the core learns it
      // from info/version asked with the key, and searches the folders itself.
      const teampassKey = await seeded.vault.admin.createKey({
        label: `alice-teampass-${Date.now()}`,
        login: 'alice',
        profile: 'teampass',
      });
      const json = await cli(['find', 'internal', 'POSTGRES', 'databases', '--json'], {
        env: { VAULTLINE_API_KEY: teampassKey },
      });
      expect(json.code).toBe(0);
      expect((JSON.parse(json.stdout) as { label: string }[]).map((row) => row.label)).toEqual(['prod db']);
      const byLabel = await cli(['find', 'db', '--json'], {
        env: { VAULTLINE_API_KEY: teampassKey },
      });
      expect((JSON.parse(byLabel.stdout) as { label: string }[]).map((row) => row.label)).toEqual([
        'prod db',
      ]);
    });

    it(
      'gets an item without its password, or one field when asked',
      async () => {
        const item = await cli(['get', String(id('prod db')), '--json']);
        expect(item.code).toBe(0);
        expect(JSON.parse(item.stdout)).toMatchObject({
          id: id('prod db'),
          label: 'prod db',
          login: 'postgres',
          path: ['Engineering', 'Databases'],
          reference: `vaultline://${id('prod db')}/password`,
        });
        const text = await cli(['get', String(id('prod db'))]);
        expect(text.stdout).toContain('postgres');
        const field = await cli(['get', String(id('prod db')), '--field', 'password'], {
          allowed: [pw('prod db')],
        });
        expect(field.stdout).toBe(`${pw('prod db')}\n`);
        const ref = await cli(['get', `vaultline://${id('prod db')}/password`, '--field', 'url', '--json']);
        expect(JSON.parse(ref.stdout)).toEqual({
          reference: `vaultline://${id('prod db')}/url`,
          value: 'postgres://db.internal:5432',
        });
        const badField = await cli(['get', '1', '--field', 'pw']);
        expect(badField.code).toBe(EXIT.reference);
      },
      startsTimeout(5),
    );

    it(
      'reads a value by id, by path, with unicode, and an attachment',
      async () => {
        const byId = await cli(['read', `vaultline://${id('prod db')}/password`], {
          allowed: [pw('prod db')],
        });
        expect(byId.stdout).toBe(`${pw('prod db')}\n`);
        const byPath = await cli(
          ['read', 'vaultline://Engineering/Databases/prod%20db/password', '--no-newline'],
          {
            allowed: [pw('prod db')],
          },
        );
        expect(byPath.stdout).toBe(pw('prod db'));
        const handWritten = await cli(['read', 'vaultline://Engineering/Databases/prod db/login']);
        expect(handWritten.stdout).toBe('postgres\n');
        const unicode = await cli(
          ['read', 'vaultline://Shared/Caf%C3%A9%20%E2%98%95%20100%25%20%2F%20wifi/password', '--json'],
          {
            allowed: [pw('Café ☕ 100% / wifi')],
          },
        );
        expect(JSON.parse(unicode.stdout).value).toBe(pw('Café ☕ 100% / wifi'));
        const file = await cli(['read', `vaultline://${id('prod db')}/file:client-key.pem`], {
          allowed: ['Attachment-Secret-Line-1234'],
        });
        expect(file.stdout).toBe('-----BEGIN KEY-----\nAttachment-Secret-Line-1234\n-----END KEY-----\n');
      },
      startsTimeout(5),
    );

    it(
      'reads the current one-time code of an item with a TOTP secret (read/otp), and says when there is none',
      async () => {
        // The server keeps TOTP secrets an import brought (sealed to their row); set one as the import does.
        const vault = seeded.vault.server.vault;
        const profile = { secret: 'JBSWY3DPEHPK3PXP', algorithm: 'sha1', digits: 6, period: 30 };
        await vault.db.query('UPDATE items SET totp = $2 WHERE id = $1', [
          id('prod db'),
          sealItemSecret(vault.ctx.box, id('prod db'), 'totp', JSON.stringify(profile)),
        ]);
        vault.ctx.invalidate();
        for (let attempt = 0; ; attempt++) {
          const before = await seeded.admin.items.otp(id('prod db'));
          const read = await cli(['read', `vaultline://${id('prod db')}/otp`, '--json'], {
            allowed: [before.code],
          });
          expect(read.code, read.stderr).toBe(0);
          const after = await seeded.admin.items.otp(id('prod db'));
          if (before.code !== after.code && attempt < 3) continue;
          expect(JSON.parse(read.stdout)).toMatchObject({ value: before.code });
          break;
        }
        // An item without a TOTP secret: the reference names nothing.
        const none = await cli(['read', `vaultline://${id('api token')}/otp`]);
        expect(none.code).toBe(EXIT.reference);
      },
      startsTimeout(6),
    );

    it(
      'fails with exit 3 and names the reference: no right, not found, unknown field',
      async () => {
        const forbidden = await cli(['read', `vaultline://${id('ops secret')}/password`], {
          env: { VAULTLINE_API_KEY: seeded.vault.adminKey },
        });
        expect(forbidden.code).toBe(EXIT.reference);
        expect(forbidden.stderr).toContain(`vaultline://${id('ops secret')}/password`);
        expect(forbidden.stderr).toContain('no right');
        const missing = await cli(['read', 'vaultline://999999/password']);
        expect(missing.code).toBe(EXIT.reference);
        expect(missing.stderr).toContain('no item with id 999999');
        const path = await cli(['read', 'vaultline://Engineering/nothing/password', '--json']);
        expect(path.code).toBe(EXIT.reference);
        expect(JSON.parse(path.stderr)).toMatchObject({ error: { code: 'not_found' } });
        const field = await cli(['read', 'vaultline://1/secret']);
        expect(field.code).toBe(EXIT.reference);
        expect(field.stderr).toContain('unknown field');
      },
      startsTimeout(5),
    );

    it('get: one line for an item that is not there, and a wrong --field in its own words', async () => {
      const missing = await cli(['get', '999999']);
      expect(missing.code).toBe(EXIT.reference);
      expect(missing.stderr.trim().split('\n')).toHaveLength(1);
      expect(missing.stderr).toContain('no item with id 999999');
      const totp = await cli(['get', String(id('prod db')), '--field', 'totp']);
      expect(totp.code).toBe(EXIT.reference);
      expect(totp.stderr).toBe(
        'vaultline: --field "totp": unknown field "totp"; expected one of password, login, email, url, description, label, otp or file:<name>.\n',
      );
    });

    it.each([
      ['hostile', 'vaultline://Engineering/\u001b]0;pwned\u0007/password'],
      ['a terminal escape in the field', 'vaultline://1/\u001b[2Jpassword'],
      ['unicode', 'vaultline://Dév/ключ/😀/password'],
      ['oversized', `vaultline://Engineering/${'a'.repeat(5000)}/password`],
      ['not a reference', 'https://example.com/password'],
      ['broken escapes', 'vaultline://Engineering/%E2%28%A1/password'],
    ])('rejects a %s reference with a short, safe message', async (_name, reference) => {
      const result = await cli(['read', reference]);
      expect(result.code).toBe(EXIT.reference);
      expect(result.stderr.length).toBeLessThan(600);
      expect(result.stderr.includes('\u001b') || result.stderr.includes('\u0007')).toBe(false);
      expect(result.stdout).toBe('');
    });

    it('says that a revoked key was revoked, and what to do, apart from a wrong key', async () => {
      const key = await seeded.vault.admin.createKey({ label: 'cli-revoked', login: 'alice' });
      await seeded.vault.admin.revokeKey('cli-revoked');
      const revoked = await cli(['read', `vaultline://${id('prod db')}/password`], {
        env: { VAULTLINE_API_KEY: key },
      });
      expect(revoked.code).toBe(EXIT.auth);
      expect(revoked.stderr).toMatch(/The API key was revoked: ask a vault administrator for a new one/);
      expect(revoked.stderr).not.toContain(key);
      const wrong = await cli(['read', `vaultline://${id('prod db')}/password`], {
        env: { VAULTLINE_API_KEY: `${key.slice(0, -2)}xx` },
      });
      expect(wrong.code).toBe(EXIT.auth);
      expect(wrong.stderr).toContain('The vault refused the API key: check VAULTLINE_API_KEY');
      expect(wrong.stderr).not.toMatch(/revoked/i);
    });

    it('reports a wrong key (exit 4) and a vault that is down (exit 5)', async () => {
      const wrong = await cli(['read', `vaultline://${id('prod db')}/password`], {
        env: { VAULTLINE_API_KEY: 'not-the-key-0123456789abcdef' },
      });
      expect(wrong.code).toBe(EXIT.auth);
      expect(wrong.stderr).not.toContain('not-the-key-0123456789abcdef');
      const down = await cli(['read', `vaultline://${id('prod db')}/password`], {
        env: { VAULTLINE_URL: 'http://127.0.0.1:9' },
      });
      expect(down.code).toBe(EXIT.vault);
      expect(down.stderr).toContain('could not reach the vault');
      const nobody = await cli(['read', `vaultline://${id('prod db')}/password`], {
        env: { VAULTLINE_API_KEY: seeded.vault.adminKey, VAULTLINE_LOGIN: 'nobody' },
      });
      expect(nobody.code).toBe(EXIT.auth);
      expect(nobody.stderr).toContain('VAULTLINE_LOGIN');
    });
  });

  describe('run', () => {
    const show = `
      const { createHash } = require('node:crypto');
      const sha = (t) => createHash('sha256').update(t ?? '').digest('hex');
      console.log('DB_PASS=' + process.env.DB_PASS);
      console.error('on stderr: ' + process.env.TOKEN);
      console.log('hash ' + sha(process.env.DB_PASS) + ' ' + sha(process.env.TOKEN) + ' ' + sha(process.env.DSN));
      console.log('key passed on: ' + ('VAULTLINE_API_KEY' in process.env));
      console.log('plain ' + process.env.PLAIN);
    `;

    it('gives the values to the child only and masks them in its stdout and stderr', async () => {
      const result = await cli(['run', '--', process.execPath, '-e', show], {
        env: {
          DB_PASS: `vaultline://${id('prod db')}/password`,
          TOKEN: 'vaultline://Engineering/api%20token/password',
          DSN: `postgres://postgres:vaultline://${id('prod db')}/password@db:5432/app`,
          PLAIN: 'not a reference',
        },
      });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`DB_PASS=${MASK}`);
      expect(result.stderr).toContain(`on stderr: ${MASK}`);
      expect(result.stdout).toContain(
        `hash ${sha(pw('prod db'))} ${sha(pw('api token'))} ${sha(`postgres://postgres:${pw('prod db')}@db:5432/app`)}`,
      );
      expect(result.stdout).toContain('key passed on: false');
      expect(result.stdout).toContain('plain not a reference');
    });

    it('masks a value written in pieces across chunks', async () => {
      const script = `
        const v = process.env.SECRET;
        process.stdout.write('start ' + v.slice(0, 4));
        setTimeout(() => process.stdout.write(v.slice(4, 9)), 80);
        setTimeout(() => process.stdout.write(v.slice(9) + ' end\\n'), 160);
      `;
      const result = await cli(['run', '--', process.execPath, '-e', script], {
        env: { SECRET: `vaultline://${id('github deploy')}/password` },
      });
      expect(result.stdout).toBe(`start ${MASK} end\n`);
    });

    describe('the start of a value at the end of the output', () => {
      // bob's 18-character password: the child writes its first 10 characters and nothing more.
      const asBob = () => ({
        S: `vaultline://${id('ops secret')}/password`,
        VAULTLINE_API_KEY: seeded.vault.adminKey,
        VAULTLINE_LOGIN: 'bob',
      });
      const start = "'T:' + process.env.S.slice(0, 10)";

      it('is masked when the command exits after writing it', async () => {
        expect(pw('ops secret')).toHaveLength(18);
        const result = await cli(['run', '--', process.execPath, '-e', `process.stdout.write(${start})`], {
          env: asBob(),
        });
        expect(result.code).toBe(0);
        expect(result.stdout).toBe(`T:${MASK}`);
      });

      it('is masked when written in pieces, on stdout and on stderr alike', async () => {
        const script = `
          const a = process.env.A, b = process.env.B;
          process.stdout.write('out:' + a.slice(0, 3));
          setTimeout(() => process.stderr.write('err:' + b.slice(0, 4)), 60);
          setTimeout(() => process.stdout.write(a.slice(3, 12)), 120);
          setTimeout(() => process.stderr.write(b.slice(4, 9)), 180);
        `;
        const result = await cli(['run', '--', process.execPath, '-e', script], {
          env: {
            A: `vaultline://${id('github deploy')}/password`,
            B: `vaultline://${id('api token')}/password`,
          },
        });
        expect(result.code).toBe(0);
        expect(result.stdout).toBe(`out:${MASK}`);
        expect(result.stderr).toBe(`err:${MASK}`);
      });

      it('is masked when the command is killed, by a signal of its own or from outside', async () => {
        const own = await cli(
          [
            'run',
            '--',
            process.execPath,
            '-e',
            `process.stdout.write(${start}); process.kill(process.pid, 'SIGKILL')`,
          ],
          { env: asBob() },
        );
        expect(own.code).toBe(128 + 9);
        expect(own.stdout).toBe(`T:${MASK}`);

        // The child tells its pid on stderr once it has written; the test kills it there.
        const script = `process.stdout.write(${start}); process.stderr.write('pid ' + process.pid + '\\n'); setInterval(() => {}, 1000);`;
        let killed = false;
        const outside = await cli(['run', '--', process.execPath, '-e', script], {
          env: asBob(),
          onSpawn: (child) => {
            child.stderr?.on('data', (chunk: Buffer) => {
              const pid = /pid (\d+)/.exec(chunk.toString())?.[1];
              if (!killed && pid) {
                killed = true;
                process.kill(Number(pid), 'SIGKILL');
              }
            });
          },
        });
        expect(killed).toBe(true);
        expect(outside.code).toBe(128 + 9);
        expect(outside.stdout).toBe(`T:${MASK}`);
      });

      it('is masked when vaultline is stopped by a signal it forwards, and never written when it is killed', async () => {
        const script = `
          process.on('SIGTERM', () => process.exit(7));
          process.stdout.write(${start});
          process.stderr.write('ready\\n');
          setTimeout(() => {}, 5000);
        `;
        const stop = (signal: NodeJS.Signals) => (child: import('node:child_process').ChildProcess) => {
          let sent = false;
          child.stderr?.on('data', (chunk: Buffer) => {
            if (!sent && chunk.toString().includes('ready')) {
              sent = true;
              child.kill(signal);
            }
          });
        };
        const terminated = await cli(['run', '--', process.execPath, '-e', script], {
          env: asBob(),
          onSpawn: stop('SIGTERM'),
        });
        expect(terminated.code).toBe(7);
        expect(terminated.stdout).toBe(`T:${MASK}`);

        const killed = await cli(['run', '--', process.execPath, '-e', script], {
          env: asBob(),
          onSpawn: stop('SIGKILL'),
        });
        // What came before the value's start was written; the start, still held back, never is.
        expect(killed.signal).toBe('SIGKILL');
        expect(killed.stdout).toBe('T:');
      });
    });

    it('does not mask with --no-masking', async () => {
      const result = await cli(
        ['run', '--no-masking', '--', process.execPath, '-e', 'console.log(process.env.S)'],
        {
          env: { S: `vaultline://${id('api token')}/password` },
          allowed: [pw('api token')],
        },
      );
      expect(result.stdout).toBe(`${pw('api token')}\n`);
    });

    it('reads env files: later files win, the environment wins over files', async () => {
      const { writeFile } = await import('node:fs/promises');
      await writeFile(
        join(home.dir, 'a.env'),
        `A=vaultline://${id('api token')}/login\nB=from-a\nC=from-a\n`,
      );
      await writeFile(
        join(home.dir, 'b.env'),
        `B=vaultline://Engineering/Databases/prod%20db/login\n# comment\nC=from-b\n`,
      );
      const result = await cli(
        [
          'run',
          '--env-file',
          'a.env',
          '--env-file',
          'b.env',
          '--',
          process.execPath,
          '-e',
          'console.log([process.env.A, process.env.B, process.env.C].join(","))',
        ],
        { env: { C: 'from-env' } },
      );
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(`${MASK},${MASK},from-env\n`);
      const missing = await cli([
        'run',
        '-f',
        'nope.env',
        '--',
        process.execPath,
        '-e',
        "console.log('started')",
      ]);
      expect(missing.code).toBe(EXIT.usage);
      expect(missing.stderr).toContain('Cannot read the env file nope.env');
      expect(missing.stdout).toBe('');
      // Node itself refuses a missing --env-file file, even after the script name (exit 9).
      const long = await cli([
        'run',
        '--env-file',
        'nope.env',
        '--',
        process.execPath,
        '-e',
        "console.log('started')",
      ]);
      expect(long.code).not.toBe(0);
      expect(long.stdout).toBe('');
    });

    it('exits with the child code, 127 for a missing command, 128+N for a signal', async () => {
      expect((await cli(['run', '--', process.execPath, '-e', 'process.exit(42)'])).code).toBe(42);
      expect((await cli(['run', '--', 'definitely-not-a-command-vaultline'])).code).toBe(EXIT.notFound);
      const killed = await cli(['run', '--', process.execPath, '-e', "process.kill(process.pid, 'SIGKILL')"]);
      expect(killed.code).toBe(128 + 9);
    });

    it('forwards SIGTERM to the child and exits with its code', async () => {
      const script = `
        process.on('SIGTERM', () => { console.log('child got SIGTERM'); process.exit(7); });
        console.log('ready');
        setInterval(() => {}, 1000);
      `;
      let sent = false;
      const result = await cli(['run', '--', process.execPath, '-e', script], {
        env: { S: `vaultline://${id('api token')}/password` },
        onSpawn: (child) => {
          child.stdout?.on('data', (chunk: Buffer) => {
            if (!sent && chunk.toString().includes('ready')) {
              sent = true;
              child.kill('SIGTERM');
            }
          });
        },
      });
      expect(sent).toBe(true);
      expect(result.stdout).toContain('child got SIGTERM');
      expect(result.code).toBe(7);
    });

    it('starts nothing when a reference fails, and names the variable', async () => {
      const result = await cli(['run', '--', process.execPath, '-e', "console.log('started')"], {
        env: {
          GOOD: `vaultline://${id('api token')}/password`,
          BAD: 'vaultline://999999/password',
          WORSE: 'vaultline://x/pw',
        },
      });
      expect(result.code).toBe(EXIT.reference);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('WORSE');
    });

    it('writes nothing to disk', async () => {
      const before = await listFiles(home.dir);
      await cli(['run', '--', process.execPath, '-e', 'console.log(process.env.S)'], {
        env: {
          S: `vaultline://${id('ops secret')}/password`,
          VAULTLINE_API_KEY: seeded.vault.adminKey,
          VAULTLINE_LOGIN: 'bob',
        },
      });
      const after = await listFiles(home.dir);
      expect(after).toEqual(before);
      for (const file of after) {
        const text = await readFile(file, 'utf8');
        for (const secret of seeded.secrets) expect(text.includes(secret)).toBe(false);
      }
    });
  });

  describe('inject', () => {
    it('writes a 0600 file, refuses to overwrite it without --force, and replaces it with --force', async () => {
      const { writeFile, chmod } = await import('node:fs/promises');
      const template = join(home.dir, 'app.tpl');
      const out = join(home.dir, 'app.conf');
      await writeFile(
        template,
        `user = vaultline://${id('prod db')}/login\npass = "vaultline://Engineering/Databases/prod%20db/password"\n`,
      );
      const first = await cli(['inject', '-i', template, '-o', out]);
      expect(first.code).toBe(0);
      expect(await readFile(out, 'utf8')).toBe(`user = postgres\npass = "${pw('prod db')}"\n`);
      expect((await stat(out)).mode & 0o777).toBe(0o600);
      await writeFile(out, 'keep me');
      await chmod(out, 0o644);
      const again = await cli(['inject', '-i', template, '-o', out]);
      expect(again.code).toBe(EXIT.exists);
      expect(again.stderr).toContain('--force');
      expect(await readFile(out, 'utf8')).toBe('keep me');
      const forced = await cli(['inject', '-i', template, '-o', out, '--force']);
      expect(forced.code).toBe(0);
      expect(await readFile(out, 'utf8')).toContain(pw('prod db'));
      expect((await stat(out)).mode & 0o777).toBe(0o600);
      expect((await readdir(home.dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    });

    it('writes to stdout with -o - and reads the template from stdin', async () => {
      const result = await cli(['inject', '-o', '-'], {
        input: `TOKEN=vaultline://${id('api token')}/password\n`,
        allowed: [pw('api token')],
      });
      expect(result.stdout).toBe(`TOKEN=${pw('api token')}\n`);
    });

    it('writes nothing when a reference fails', async () => {
      const out = join(home.dir, 'never.conf');
      const result = await cli(['inject', '-o', out], {
        input: `a=vaultline://${id('api token')}/password\nb=vaultline://${id('ops secret')}/password\n`,
      });
      expect(result.code).toBe(EXIT.reference);
      await expect(stat(out)).rejects.toThrow();
      const bad = await cli(['inject', '-o', out], { input: 'x\ny=vaultline://1/nope\n' });
      expect(bad.code).toBe(EXIT.reference);
      expect(bad.stderr).toContain('line 2');
    });
  });

  it('shows a spinner on a terminal only, and never with --json', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const { CLI } = await import('./support/cli.ts');
    // script(1) gives the command a pseudo-terminal, as a person's shell would.
    const inTerminal = async (args: string[]) => {
      const line = [process.execPath, CLI, ...args].map((word) => `'${word}'`).join(' ');
      const env = { PATH: process.env.PATH ?? '', HOME: home.dir, TERM: 'xterm-256color', ...asAlice() };
      return (await promisify(execFile)('script', ['-qec', line, '/dev/null'], { env })).stdout;
    };
    const frames = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;
    const spun = await inTerminal(['get', String(id('prod db'))]);
    expect(spun).toMatch(frames);
    expect(spun).toContain('postgres');
    const json = await inTerminal(['get', String(id('prod db')), '--json']);
    expect(json).not.toMatch(frames);
    expect(json).toContain('"login": "postgres"');
    const piped = await cli(['get', String(id('prod db'))]);
    expect(piped.stdout + piped.stderr).not.toMatch(frames);
  });

  it('README example: the .env of the README runs with vaultline run -f', async () => {
    const { writeFile } = await import('node:fs/promises');
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const example = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    // The README's .env, with its item id 42 mapped onto the seeded vault's api token.
    const dotenv = example
      .split('\n')
      .filter((line) => /^[A-Z_]+=/.test(line))
      .join('\n')
      .replace('vaultline://42/', `vaultline://${id('api token')}/`);
    expect(dotenv).toContain('DB_PASS=vaultline://Engineering/Databases/prod%20db/password');
    expect(example).toContain('vaultline run -f .env -- node server.js');
    await writeFile(join(home.dir, '.env'), `${dotenv}\n`);
    const server =
      "console.log(require('node:crypto').createHash('sha256').update(process.env.DB_PASS + process.env.API_TOKEN + process.env.DB_HOST).digest('hex'))";
    const result = await cli(['run', '-f', '.env', '--', process.execPath, '-e', server]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${sha(`${pw('prod db')}${pw('api token')}db.internal`)}\n`);
  });

  it(
    'completes commands and options in bash, from the commander tree',
    async () => {
      const { execFile } = await import('node:child_process');
      const { promisify } = await import('node:util');
      const script = (await cli(['completion', 'bash'])).stdout;
      const complete = async (words: string[]) => {
        const line = `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _vaultline; echo "\${COMPREPLY[*]}"`;
        return (await promisify(execFile)('bash', ['-c', line])).stdout.trim();
      };
      expect(await complete(['vaultline', 'r'])).toBe('read run');
      expect((await complete(['vaultline', 'run', '--'])).split(' ')).toEqual(
        expect.arrayContaining(['--env-file', '--no-masking']),
      );
      expect(await complete(['vaultline', 'completion', ''])).toBe('bash zsh fish');
      expect(await complete(['vaultline', '-c', 'work', 'inject', '--f'])).toBe('--force');
      const zsh = (await cli(['completion', 'zsh'])).stdout;
      expect(zsh).toContain('#compdef vaultline');
      expect(zsh).toContain("'inject:");
      const fish = (await cli(['completion', 'fish'])).stdout;
      expect(fish).toContain(
        'complete -c vaultline -n "__fish_seen_subcommand_from run" -s f -l env-file -r -F',
      );
      expect((await cli(['completion', 'tcsh'])).code).toBe(EXIT.usage);
    },
    startsTimeout(4),
  );

  it('never prints a key or a password that was not asked for', () => {
    expect(outputs.length).toBeGreaterThan(30);
    for (const { args, result, allowed } of outputs) {
      expect({ args: args.join(' ').slice(0, 80), leaked: leaks(result, seeded.secrets, allowed) }).toEqual({
        args: args.join(' ').slice(0, 80),
        leaked: [],
      });
    }
    expect(HOSTILE_LABEL).toContain('\u001b');
  });
});

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}
