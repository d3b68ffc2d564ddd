import { spawn } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestVault } from '../src/testing.ts';
import { CLI, runCli, tempDirs } from './support/cli.ts';
import { clientOf, expectNoSecrets, expectVaultError } from './support/helpers.ts';

// The server's own log lines are part of what these tests read.
const cli = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, { VAULTLINE_LOG_LEVEL: 'info', ...env }, 60_000);
const tempDir = tempDirs('vaultline-cli-');

describe('vaultline-server CLI', () => {
  it.each([
    [[], 2, /Usage: vaultline-server/],
    [['bogus'], 2, /unknown command 'bogus'/],
    [['keys'], 2, /Usage: vaultline-server keys[\s\S]*create[\s\S]*list[\s\S]*revoke/],
    [['keys', 'create'], 2, /required option '--label <label>' not specified/],
    [['keys', 'create', '--label', 'x', '--nope'], 2, /unknown option '--nope'/],
    [
      ['keys', 'create', '--label', 'x', '--profile', 'teampass2'],
      2,
      /option '--profile <profile>' argument 'teampass2' is invalid\. Allowed choices are vaultline, teampass\./,
    ],
    [
      ['grant', '--role', 'r', '--folder', 'abc', '--access', 'W'],
      2,
      /Expected --folder to be a whole number/,
    ],
    [
      ['grant', '--role', 'r', '--folder', '1', '--access', 'X'],
      2,
      /Expected --access to be one of W, ND, NE, NDNE, R/,
    ],
    [['audit', '--limit', '0'], 2, /Expected --limit/],
    [['users', 'create'], 2, /required option '--login <login>' not specified/],
    [['roles', 'rename'], 2, /too many arguments|unknown command 'rename'/],
    [['start', 'extra'], 2, /too many arguments/],
  ])('refuses %j with exit code %i and a clear message', async (args, code, message) => {
    const result = await cli(args);
    expect(result.code).toBe(code);
    expect(result.stderr + result.stdout).toMatch(message);
  });

  it('generates --help for every command, with exit code 0', async () => {
    for (const command of [[], ['keys'], ['keys', 'create'], ['users', 'assign'], ['grant'], ['audit']]) {
      const result = await cli([...command, '--help']);
      expect(result.code, command.join(' ')).toBe(0);
      expect(result.stdout).toMatch(
        new RegExp(`Usage: vaultline-server${command.map((c) => ` ${c}`).join('')}`),
      );
    }
  });

  it('refuses an invalid configuration, naming each bad variable', async () => {
    const result = await cli(['start'], {
      VAULTLINE_PORT: 'abc',
      DATABASE_URL: 'mysql://x',
      VAULTLINE_MAX_FILE_BYTES: '0',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/Invalid configuration: /);
    expect(result.stderr).toMatch(/VAULTLINE_PORT must be a whole number/);
    expect(result.stderr).toMatch(/DATABASE_URL must start with postgres:\/\//);
    expect(result.stderr).toMatch(/VAULTLINE_MAX_FILE_BYTES must be at least 1/);
  });

  it('refuses hostile, oversized and unicode values with a clear error and changes nothing', async () => {
    const env = { VAULTLINE_DATA_DIR: await tempDir() };
    const unicode = await cli(['users', 'create', '--login', 'ünï cøde 😀'], env);
    expect(unicode.code).toBe(1);
    expect(unicode.stderr).toMatch(/Expected a login of letters, digits/);
    const sql = await cli(['users', 'create', '--login', "x'; DROP TABLE users; --"], env);
    expect(sql.code).toBe(1);
    const long = await cli(['keys', 'create', '--label', 'x'.repeat(101)], env);
    expect(long.code).toBe(1);
    expect(long.stderr).toMatch(/at most 100 characters/);
    const huge = await cli(
      ['grant', '--role', 'r', '--folder', '99999999999999999999', '--access', 'R'],
      env,
    );
    expect(huge.code).toBe(2);
    const users = await cli(['users', 'list'], env);
    expect(users.stdout.trim()).toBe('(none)');
  });

  describe('administration of a data directory', () => {
    let dataDir: string;
    let env: Record<string, string>;
    let aliceKey: string;
    let teampassKey: string;

    beforeAll(async () => {
      dataDir = await tempDir();
      env = { VAULTLINE_DATA_DIR: dataDir };
    });

    it('seeds the demo vault, manages users, roles, rights and keys, and shows the audit log', async () => {
      const demo = await cli(['demo'], env);
      expect(demo.code, demo.stderr).toBe(0);
      expect(demo.stdout).toMatch(/Seeded the demo vault: users alice, bob, carol/);

      expect(
        (await cli(['users', 'create', '--login', 'dave', '--email', 'dave@example.com'], env)).stdout,
      ).toMatch(/Created user dave with id \d+/);
      expect((await cli(['roles', 'create', '--name', 'dba'], env)).stdout).toMatch(/Created role dba/);
      expect((await cli(['users', 'assign', '--login', 'dave', '--role', 'dba'], env)).code).toBe(0);
      expect((await cli(['grant', '--role', 'dba', '--folder', '2', '--access', 'NE'], env)).stdout).toMatch(
        /Role dba has NE on folder 2/,
      );
      const missingRole = await cli(['grant', '--role', 'nobody', '--folder', '2', '--access', 'R'], env);
      expect(missingRole.code).toBe(1);
      expect(missingRole.stderr).toMatch(/Role does not exist/);
      const badIp = await cli(['keys', 'create', '--label', 'bad', '--allow-ip', '300.1.1.1'], env);
      expect(badIp.code).toBe(1);
      expect(badIp.stderr).toMatch(/IP addresses or CIDR ranges/);

      const created = await cli(
        ['keys', 'create', '--label', 'dave-key', '--user', 'dave', '--allow-ip', '127.0.0.1/32'],
        env,
      );
      expect(created.code, created.stderr).toBe(0);
      aliceKey = created.stdout.trim();
      expect(aliceKey).toMatch(/^vlk_[A-Za-z0-9_-]{43}$/);
      expect(created.stderr).toMatch(/shown once/);

      const scripts = await cli(
        ['keys', 'create', '--label', 'scripts', '--profile', 'teampass', '--json'],
        env,
      );
      expect(scripts.code, scripts.stderr).toBe(0);
      const created2 = JSON.parse(scripts.stdout) as { label: string; key: string; profile: string };
      expect(created2).toMatchObject({ label: 'scripts', profile: 'teampass' });
      teampassKey = created2.key;

      const list = await cli(['keys', 'list'], env);
      expect(list.stdout).toMatch(/dave-key\s+dave\s+127\.0\.0\.1\/32\s+vaultline/);
      expect(list.stdout).toMatch(/scripts\s+\(admin\)\s+\(any\)\s+teampass/);
      expect(list.stdout).not.toContain(teampassKey);
      expect(list.stdout).not.toContain(aliceKey);
      const users = await cli(['users', 'list'], env);
      expect(users.stdout).toMatch(/dave\s+dave@example\.com\s+dba/);
      expect(users.stdout).toMatch(/bob\s+bob@example\.com\s+developers,operations/);
      const roles = await cli(['roles', 'list'], env);
      expect(roles.stdout).toMatch(/dba\s+2:NE/);
      const audit = await cli(['audit', '--limit', '5', '--action', 'add/file', '--json'], env);
      const entries = audit.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { action: string; outcome: string });
      expect(entries).toHaveLength(2);
      expect(entries.every((entry) => entry.action === 'add/file' && entry.outcome === 'ok')).toBe(true);

      // A write from the admin CLI is audited, in its own transaction, with who made it.
      const adminWrites = await cli(['audit', '--limit', '100', '--json'], env);
      const records = adminWrites.stdout
        .trim()
        .split('\n')
        .map(
          (line) =>
            JSON.parse(line) as {
              actor: string;
              keyLabel: string;
              action: string;
              target: string;
              address: string;
            },
        );
      const daveCreated = records.find(
        (entry) => entry.action === 'admin/user-create' && / dave$/.test(entry.target),
      );
      expect(daveCreated).toMatchObject({ actor: userInfo().username, keyLabel: '', address: 'cli' });
      expect(records).toContainEqual(
        expect.objectContaining({
          action: 'admin/grant',
          target: 'role dba folder 2 NE',
          actor: userInfo().username,
        }),
      );
      expect(records).toContainEqual(
        expect.objectContaining({ action: 'admin/key-create', target: 'key dave-key', address: 'cli' }),
      );
    }, 300_000);

    it('serves what the CLI set up, refuses a revoked key, and rotates the master key', async () => {
      const vault = await startTestVault({ dataDir });
      let passwords: string[];
      try {
        passwords = (await clientOf(vault).readItems({ ids: [1, 2, 3] })).map((item) => item.password);
        expect(passwords).toHaveLength(3);
        const dave = clientOf(vault, aliceKey);
        const folders = await dave.readUserFolders({ login: 'dave' });
        expect(folders.map((f) => [f.title, f.accessType])).toEqual([['Databases', 'NE']]);
        // The key made with --profile teampass is answered as TeamPass answers.
        const version = await fetch(`${vault.url}/api/index.php/info/version?apikey=${teampassKey}`);
        expect(await version.json()).toEqual({ 'api-version': '2.1.5' });
        // The running server carries out the admin commands (its admin channel)…
        const listed = await cli(['keys', 'list', '--json'], env);
        expect(listed.code, listed.stderr).toBe(0);
        expect(listed.stdout).toContain('"label":"dave-key"');
        // …and what needs the database itself waits for it to stop.
        const busy = await cli(['rotate-master-key'], env);
        expect(busy.code).toBe(1);
        expect(busy.stderr).toMatch(/is in use by process \d+/);
      } finally {
        await vault.close();
      }
      expect((await cli(['keys', 'revoke', '--label', 'dave-key'], env)).stdout).toMatch(/Revoked dave-key/);
      expect((await cli(['keys', 'revoke', '--label', 'dave-key'], env)).stderr).toMatch(
        /No active key labelled "dave-key"/,
      );
      const oldMasterKey = await readFile(join(dataDir, 'master.key'), 'utf8');
      const rotated = await cli(['rotate-master-key'], env);
      expect(rotated.code, rotated.stderr).toBe(0);
      expect(rotated.stdout).toMatch(/Re-encrypted \d+ passwords and 2 attachments\./);
      expect(await readFile(join(dataDir, 'master.key'), 'utf8')).not.toBe(oldMasterKey);
      const again = await startTestVault({ dataDir });
      try {
        await expectVaultError(
          clientOf(again, aliceKey).readUserFolders({ login: 'dave' }),
          'unauthorized',
          401,
        );
        expect((await clientOf(again).readItems({ ids: [1, 2, 3] })).map((item) => item.password)).toEqual(
          passwords,
        );
      } finally {
        await again.close();
      }
    });
  });

  it('quickstart seeds on first run, prints three working curl calls, and reuses the data on the next run', async () => {
    const dataDir = await tempDir();
    const start = async () => {
      const child = spawn(process.execPath, [CLI, 'quickstart'], {
        env: { ...process.env, VAULTLINE_DATA_DIR: dataDir, VAULTLINE_PORT: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const lines: string[] = [];
      await new Promise<void>((resolve, reject) => {
        createInterface({ input: child.stdout! }).on('line', (line) => {
          lines.push(line);
          if (line.startsWith('Press Ctrl+C')) resolve();
        });
        child.once('exit', (code) =>
          reject(new Error(`quickstart exited with ${code}: ${lines.join('\n')}`)),
        );
      });
      return { child, output: lines.join('\n') };
    };
    const stop = async (child: ReturnType<typeof spawn>) => {
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    };

    const first = await start();
    expect(first.output).toMatch(/Created a demo vault in /);
    const key = /Admin API key:\s+(vlk_\S+)/.exec(first.output)?.[1];
    expect(key).toBeDefined();
    // The key travels in a header, never in the URL.
    const curls = [...first.output.matchAll(/curl -H 'Authorization: Bearer (\S+)' '([^']+)'/g)];
    expect(curls).toHaveLength(3);
    for (const [, bearer, url] of curls) {
      expect(bearer).toBe(key);
      expect(url).not.toContain(key!);
      const response = await fetch(url!, { headers: { authorization: `Bearer ${bearer}` } });
      expect(response.status, url).toBe(200);
      const body = (await response.json()) as unknown;
      expect(Array.isArray(body) ? body.length : Object.keys(body as object).length).toBeGreaterThan(0);
    }
    await stop(first.child);
    expect((await stat(join(dataDir, 'quickstart-admin.key'))).mode & 0o777).toBe(0o600);
    expect((await readFile(join(dataDir, 'quickstart-admin.key'), 'utf8')).trim()).toBe(key);

    const second = await start();
    expect(second.output).toMatch(/Reusing the vault in /);
    expect(second.output).toContain(key);
    await stop(second.child);
  });

  it('finishes a request in flight on SIGTERM, then exits 0, and never logs the key', async () => {
    const dataDir = await tempDir();
    const env = {
      ...process.env,
      VAULTLINE_ALLOW_ROOT: '1',
      VAULTLINE_DATA_DIR: dataDir,
      VAULTLINE_PORT: '0',
    };
    const created = await cli(['keys', 'create', '--label', 'term'], { VAULTLINE_DATA_DIR: dataDir });
    const key = created.stdout.trim();
    const seed = await startTestVault({ dataDir });
    const folder = await clientOf(seed, key).addFolder({ folder: { title: 'Term' } });
    const { id } = await clientOf(seed, key).addItem({
      item: { label: 'term item', password: 'term-password-1', folderId: folder.id },
    });
    await seed.close();

    const child = spawn(process.execPath, [CLI, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const logLines: string[] = [];
    createInterface({ input: child.stdout! }).on('line', (line) => logLines.push(line));
    const port = await new Promise<number>((resolve, reject) => {
      createInterface({ input: child.stderr! }).on('line', (line) => {
        const match = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(line);
        if (match) resolve(Number(match[1]));
      });
      child.once('exit', (code) => reject(new Error(`start exited with ${code}`)));
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));

    const boundary = 'vaultline-boundary';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="item_id"\r\n\r\n${id}\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.txt"\r\nContent-Type: text/plain\r\n\r\n`;
    const tail = `\r\n--${boundary}--\r\n`;
    const payload = 'slow upload '.repeat(100);
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: `/api/index.php/add/file?apikey=${key}`,
          headers: {
            'content-type': `multipart/form-data; boundary=${boundary}`,
            'content-length': Buffer.byteLength(head) + Buffer.byteLength(payload) + Buffer.byteLength(tail),
          },
        },
        (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.write(head);
      req.write(payload.slice(0, 500));
      setTimeout(() => {
        child.kill('SIGTERM');
        setTimeout(() => req.end(payload.slice(500) + tail), 300);
      }, 300);
    });
    const result = await answer;
    expect(result.status).toBe(200);
    expect(JSON.parse(result.body)).toMatchObject({ status: 'success' });
    expect(await exited).toBe(0);

    const after = await startTestVault({ dataDir });
    try {
      const files = await clientOf(after, key).listFiles({ itemId: id });
      expect(files.map((f) => [f.name, f.size])).toEqual([['slow.txt', payload.length]]);
    } finally {
      await after.close();
    }
    expect(logLines.some((line) => line.includes('"op":"add/file"'))).toBe(true);
    expectNoSecrets(logLines, [key, 'term-password-1']);
  });
});
