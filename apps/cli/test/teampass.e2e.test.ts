import { EXIT } from '@vaultline/protocol';
import { type ReplayServer, startReplayServer } from '@vaultline/protocol/testing';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { MASK } from '../src/constants.ts';
import { type CliOptions, type CliResult, leaks, runCli, tempHome } from './support/cli.ts';
import { startsTimeout } from './support/timing.ts';

// A test here starts at most three processes unless it says how many (test/support/timing.ts).
vi.setConfig({ testTimeout: startsTimeout(3) });

const KEY = 'tpCliKey0123456789abcdefghijklmnopqrstuv';
/** The replay server's seeded passwords (see @vaultline/protocol/testing). */
const SECRETS = ['pw-db-seeded', 'pw-cache-seeded', KEY];

let server: ReplayServer;
let home: { dir: string; cleanup: () => Promise<void> };
const outputs: { result: CliResult; allowed: string[] }[] = [];

beforeAll(async () => {
  server = await startReplayServer({ apiKey: KEY });
  home = await tempHome();
});
afterAll(async () => {
  await server?.close();
  await home?.cleanup();
});

async function cli(
  args: readonly string[],
  options: CliOptions & { allowed?: string[] } = {},
): Promise<CliResult> {
  const result = await runCli(home.dir, args, {
    ...options,
    env: { VAULTLINE_URL: server.url, VAULTLINE_API_KEY: KEY, VAULTLINE_LOGIN: 'alice', ...options.env },
  });
  outputs.push({ result, allowed: options.allowed ?? [] });
  return result;
}

describe('vaultline against TeamPass 2.x (the replay server)', () => {
  it(
    'connects, finds, gets and reads',
    async () => {
      const connect = await cli(['connect', server.url, '--login', 'alice'], {
        env: { VAULTLINE_URL: undefined, VAULTLINE_LOGIN: undefined },
      });
      expect(connect.code).toBe(0);
      const find = await cli(['find', 'db', '--json']);
      expect(find.code).toBe(0);
      expect(JSON.parse(find.stdout)).toEqual([
        expect.objectContaining({
          id: 10,
          label: 'db',
          path: ['Team'],
          reference: 'vaultline://10/password',
        }),
      ]);
      const get = await cli(['get', '10', '--json']);
      expect(JSON.parse(get.stdout)).toMatchObject({ id: 10, label: 'db', login: 'admin', path: ['Team'] });
      const read = await cli(['read', 'vaultline://10/password'], { allowed: ['pw-db-seeded'] });
      expect(read.stdout).toBe('pw-db-seeded\n');
      const byPath = await cli(['read', 'vaultline://Team/Staging/cache/password', '--json'], {
        allowed: ['pw-cache-seeded'],
      });
      expect(JSON.parse(byPath.stdout)).toEqual({
        reference: 'vaultline://Team/Staging/cache/password',
        value: 'pw-cache-seeded',
      });
    },
    startsTimeout(5),
  );

  it('keeps what connect learned: commands on a stored TeamPass 2 connection send no info/version', async () => {
    const stored = { VAULTLINE_URL: undefined, VAULTLINE_LOGIN: undefined };
    server.reset();
    const connect = await cli(['connect', server.url, '--login', 'alice', '--name', 'tp2'], {
      env: { ...stored, VAULTLINE_API_KEY_TP2: KEY },
    });
    expect(connect.code).toBe(0);
    // connect asked once, keyless; TeamPass answered its missing-key error (a 500 in its logs).
    expect(server.identifications).toHaveLength(1);
    server.reset();
    const env = { ...stored, VAULTLINE_API_KEY_TP2: KEY };
    const get = await cli(['--connection', 'tp2', 'get', '10', '--json'], { env });
    expect(JSON.parse(get.stdout)).toMatchObject({ id: 10, label: 'db' });
    const read = await cli(['--connection', 'tp2', 'read', 'vaultline://10/password'], {
      env,
      allowed: ['pw-db-seeded'],
    });
    expect(read.stdout).toBe('pw-db-seeded\n');
    const find = await cli(['--connection', 'tp2', 'find', 'db', '--json'], { env });
    expect(JSON.parse(find.stdout)).toEqual([expect.objectContaining({ id: 10 })]);
    expect(server.identifications).toEqual([]);
    expect(server.requests.length).toBeGreaterThan(0);
    expect(server.requests.every((request) => request.url.includes(`?apikey=${KEY}`))).toBe(true);
  });

  it('remembers TeamPass 2 from environment variables only (CI): info/version is asked once, not per command', async () => {
    server.reset();
    const ci = await tempHome();
    onTestFinished(() => ci.cleanup());
    const env = { VAULTLINE_URL: server.url, VAULTLINE_API_KEY: KEY, VAULTLINE_LOGIN: 'alice' };
    for (const args of [
      ['get', '10', '--json'],
      ['find', 'db', '--json'],
      ['get', '11', '--json'],
    ]) {
      const result = await runCli(ci.dir, args, { env });
      expect(result.code, result.stderr).toBe(0);
    }
    expect(server.identifications).toHaveLength(1);
    expect(server.requests.every((request) => request.url.includes(`?apikey=${KEY}`))).toBe(true);
  });

  it('behind a proxy that hides its answer: connect stops, unless told --key-in-url for that connection', async () => {
    server.reset();
    // A proxy that replaces TeamPass's 500 {"err":…} with its own error page.
    const hidden = () =>
      server.fault({
        match: (request) => request.url.endsWith('/info/version'),
        reply: {
          status: 500,
          body: '<html>Internal Server Error</html>',
          headers: { 'content-type': 'text/html' },
        },
      });
    hidden();
    onTestFinished(() => server.reset());
    const env = { VAULTLINE_URL: undefined, VAULTLINE_LOGIN: undefined, VAULTLINE_API_KEY_HIDDEN: KEY };
    const refused = await cli(['connect', server.url, '--login', 'alice', '--name', 'hidden'], { env });
    expect(refused.code).toBe(EXIT.vault);
    expect(refused.stderr).toContain('--key-in-url');
    // Only keyless requests: the identification and TeamPass 3's OpenAPI document.
    expect(server.requests.map((request) => request.url)).toEqual(['/api/index.php/openapi.json']);
    const mark = server.requests.length;
    const told = await cli(['connect', server.url, '--login', 'alice', '--name', 'hidden', '--key-in-url'], {
      env,
    });
    expect(told.code).toBe(0);
    const get = await cli(['--connection', 'hidden', 'get', '10', '--json'], { env });
    expect(JSON.parse(get.stdout)).toMatchObject({ id: 10, label: 'db' });
    const keyed = server.requests.slice(mark);
    expect(keyed.length).toBeGreaterThan(0);
    expect(keyed.every((request) => request.url.includes(`?apikey=${KEY}`))).toBe(true);
    // Nothing asked the identification after connect was told.
    expect(server.identifications).toHaveLength(1);
  });

  it('says when TeamPass did not return a password, and that it has no attachments', async () => {
    const personal = await cli(['read', 'vaultline://12/password']);
    expect(personal.code).toBe(EXIT.reference);
    expect(personal.stderr).toContain('did not return the password');
    const file = await cli(['read', 'vaultline://10/file:id_rsa']);
    expect(file.code).toBe(EXIT.reference);
    expect(file.stderr).toContain('no attachment named "id_rsa"');
  });

  it('runs a command with masked values and injects a template', async () => {
    const run = await cli(
      ['run', '--', process.execPath, '-e', 'console.log(process.env.A + " " + process.env.B)'],
      {
        env: { A: 'vaultline://10/password', B: 'vaultline://Team/Staging/cache/login' },
      },
    );
    expect(run.code).toBe(0);
    // Every resolved value is masked, logins too.
    expect(run.stdout).toBe(`${MASK} ${MASK}\n`);
    const inject = await cli(['inject'], {
      input: 'pw: vaultline://11/password\n',
      allowed: ['pw-cache-seeded'],
    });
    expect(inject.stdout).toBe('pw: pw-cache-seeded\n');
  });

  it('never prints the key TeamPass echoes back in its error', async () => {
    const wrong = 'tpWrongKey0123456789abcdefghijklmnopqrs';
    const result = await cli(['read', 'vaultline://10/password'], { env: { VAULTLINE_API_KEY: wrong } });
    expect(result.code).toBe(EXIT.auth);
    expect(result.stderr).not.toContain(wrong);
    expect(server.requests.some((request) => request.url.includes(wrong))).toBe(true);
  });

  it('reports a switched-off API (exit 4) and a server that drops connections (exit 5)', async () => {
    const disabled = await startReplayServer({ apiKey: KEY, apiDisabled: true });
    try {
      const result = await cli(['read', 'vaultline://10/password'], { env: { VAULTLINE_URL: disabled.url } });
      expect(result.code).toBe(EXIT.auth);
    } finally {
      await disabled.close();
    }
    server.fault({ reply: { destroy: true } });
    const dropped = await cli(['read', 'vaultline://10/password']);
    expect(dropped.code).toBe(EXIT.vault);
    server.reset();
  });

  it('never prints a key or a password that was not asked for', () => {
    expect(outputs.length).toBeGreaterThan(8);
    for (const { result, allowed } of outputs) expect(leaks(result, SECRETS, allowed)).toEqual([]);
  });
});
