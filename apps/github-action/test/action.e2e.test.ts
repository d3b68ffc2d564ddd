import { readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createVaultClient } from '@vaultline/protocol';
import { startTeamPass3Fake, type TeamPass3Fake } from '@vaultline/protocol/testing';
import {
  type OutageProxy,
  startOutageProxy,
  startTestIssuer,
  startTestVault,
  type TestIssuer,
  type TestVault,
} from '@vaultline/vault-server/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type ActionRun,
  parseFileCommands,
  type RunnerPlatform,
  runAction,
  unmaskedLeaks,
} from './support/runner.ts';

/** Values a runner's file commands and workflow commands must carry exactly, and mask. */
const VALUES = {
  percent: 'Pa%25ss%0A%word-100%',
  crlf: 'first-line-Zq9\r\nsecond-line-Xw8\r\nthird',
  multiline: '-----BEGIN KEY-----\nkey-body-Mn7Lk6\n}\n-----END KEY-----\n',
  delimiter: 'EOF\nghadelimiter_1b4e28ba-2fa1-11d2-883f-0016d3cca427\n<<EOF\nend-Delim-77',
  lone: 'carriage\rreturn-Cr55',
  trailing: 'trailing-cr-Tq4\r',
  ops: 'Ops-Only-Secret-77',
} as const;

let vault: TestVault;
let proxy: OutageProxy;
let aliceKey: string;
let home: string;
const ids: Record<string, number> = {};
const runs: ActionRun[] = [];
const extraKeys: string[] = [];
const secrets = () => [...Object.values(VALUES), aliceKey, vault.adminKey, ...extraKeys];

beforeAll(async () => {
  vault = await startTestVault();
  proxy = await startOutageProxy(vault.url);
  const admin = createVaultClient({ baseUrl: vault.url, auth: vault.adminKey });
  await vault.admin.createUser({ login: 'alice' });
  await vault.admin.createRole({ name: 'ci' });
  await vault.admin.assignRole('alice', 'ci');
  const folder = async (title: string) =>
    (await admin.folders.create({ title, complexityLevel: 0, parentId: 0 })).id;
  const ci = await folder('CI');
  const ops = await folder('Ops');
  await vault.admin.grant('ci', ci, 'R');
  for (const [name, password] of Object.entries(VALUES))
    ids[name] = (await admin.items.create({ label: name, password, folderId: name === 'ops' ? ops : ci })).id;
  aliceKey = await vault.admin.createKey({ label: 'alice-ci', login: 'alice' });
  home = join(tmpdir(), `vaultline-action-home-${process.pid}`);
});
afterAll(async () => {
  // No value or key in any output of this file, and each value masked before anything could print it.
  for (const run of runs) expect(unmaskedLeaks(run, secrets())).toEqual([]);
  await proxy?.close();
  await vault?.close();
  await rm(home, { recursive: true, force: true });
});
beforeEach(async () => {
  proxy.mode = 'up';
  await rm(home, { recursive: true, force: true });
});

const STEP_ENV = () => ({
  PERCENT: `vaultline://${ids.percent}/password`,
  CRLF: `vaultline://${ids.crlf}/password`,
  MULTILINE: `vaultline://${ids.multiline}/password`,
  DELIMITER: `vaultline://${ids.delimiter}/password`,
  LONE_CR: `vaultline://${ids.lone}/password`,
  TRAILING_CR: `vaultline://${ids.trailing}/password`,
  DB_URL: `postgres://app:vaultline://CI/percent/password@db:5432/app`,
});
const EXPECTED = {
  PERCENT: VALUES.percent,
  CRLF: VALUES.crlf,
  MULTILINE: VALUES.multiline,
  DELIMITER: VALUES.delimiter,
  LONE_CR: VALUES.lone,
  TRAILING_CR: VALUES.trailing,
  DB_URL: `postgres://app:${VALUES.percent}@db:5432/app`,
};

async function action(
  inputs: Record<string, string> = {},
  env: Record<string, string> = STEP_ENV(),
  key = aliceKey,
  platform: RunnerPlatform = 'linux',
): Promise<ActionRun> {
  const run = await runAction({
    home,
    inputs: { url: proxy.url, 'api-key': key, login: 'alice', ...inputs },
    env,
    platform,
  });
  runs.push(run);
  return run;
}

const errors = (run: ActionRun) =>
  run.lines.filter((line) => line.command === 'error').map((line) => line.data);
const warnings = (run: ActionRun) =>
  run.lines.filter((line) => line.command === 'warning').map((line) => line.data);

describe('the GitHub Action, run as a runner runs it', () => {
  it('masks every value, line by line, before anything else, then exports each exactly', async () => {
    const run = await action();
    expect({ code: run.code, errors: errors(run) }).toEqual({ code: 0, errors: [] });
    expect(run.env).toEqual(EXPECTED);
    expect(run.outputs).toEqual({});
    // Each value and each of its lines is masked.
    for (const value of Object.values(EXPECTED)) {
      expect(run.masks).toContain(value);
      for (const line of value.split(/\r\n|\r|\n/)) if (line.length >= 3) expect(run.masks).toContain(line);
      // Nothing shorter: a mask of "}" would hide every brace of the later logs.
      expect(run.masks.filter((mask) => mask.trim().length < 3)).toEqual([]);
    }
    // The API key first, then the values; the one line that is not a mask comes after all of them.
    expect(run.masks[0]).toBe(aliceKey);
    const info = run.lines.findIndex((line) => line.command === undefined);
    expect(run.lines[info]!.data).toMatch(/^Resolved 7 references into PERCENT, .*DB_URL: exported/);
    expect(run.lines.slice(0, info).every((line) => line.command === 'add-mask')).toBe(true);
    expect(run.lines.slice(info + 1)).toEqual([]);
    // Exported through heredocs whose delimiter occurs in no value.
    const delimiters = [...run.envFile.matchAll(/^[A-Z_]+<<(.+)$/gm)].map((match) => match[1]!);
    expect(delimiters).toHaveLength(7);
    for (const delimiter of delimiters) {
      expect(delimiter).toMatch(/^ghadelimiter_[0-9a-f-]{36}$/);
      for (const value of Object.values(EXPECTED)) expect(value).not.toContain(delimiter);
    }
  });

  it('sets only the step outputs when asked', async () => {
    const run = await action({ 'export-env': 'false' });
    expect(run.code).toBe(0);
    expect(run.env).toEqual({});
    expect(run.outputs).toEqual(EXPECTED);
  });

  it('fails on an unknown or a refused reference, naming the variable, exporting nothing', async () => {
    const unknown = await action({}, { ...STEP_ENV(), MISSING: 'vaultline://999999/password' });
    expect(unknown.code).toBe(1);
    expect(errors(unknown).join('\n')).toMatch(/^MISSING: .*999999/m);
    expect(unknown.envFile).toBe('');
    const refused = await action({}, { ...STEP_ENV(), OPS: `vaultline://${ids.ops}/password` });
    expect(refused.code).toBe(1);
    expect(errors(refused).join('\n')).toMatch(/^OPS: /m);
    expect(refused.envFile).toBe('');
    const invalid = await action({}, { BAD: 'vaultline://42/nofield' });
    expect(invalid.code).toBe(1);
    expect(errors(invalid).join('\n')).toMatch(/^BAD: /);
  });

  it('refuses a missing URL, a bad boolean, a named connection, and a runner without GITHUB_ENV', async () => {
    const noUrl = await action({ url: '' });
    expect(errors(noUrl)).toEqual(['Input required and not supplied: url.']);
    const bad = await action({ 'export-env': 'maybe' });
    expect(errors(bad)[0]).toMatch(/^export-env: expected true or false/);
    const named = await action({}, { X: 'vaultline://work@42/password' });
    expect(errors(named)[0]).toMatch(/^X: the Action has one connection/);
    const outside = await runAction({
      home,
      inputs: { url: proxy.url, 'api-key': aliceKey },
      env: { GITHUB_ENV: '', X: `vaultline://${ids.percent}/password` },
    });
    runs.push(outside);
    expect(errors(outside)[0]).toMatch(/^GITHUB_ENV is not set/);
    expect(outside.stdout).not.toContain('set-env');
  });

  describe('when the vault is down', () => {
    const cached = { 'cache-max-age': '1h' };

    it('fails without a fallback', async () => {
      proxy.mode = 'down';
      const run = await action();
      expect(run.code).toBe(1);
      expect(errors(run)[0]).toMatch(/reach the vault/i);
      expect(run.envFile).toBe('');
    });

    it('uses the values of the last successful run, sealed, with a warning naming their age', async () => {
      expect((await action(cached)).code).toBe(0);
      const files = await readdir(join(home, '.cache', 'vaultline'));
      expect(files).toHaveLength(1);
      for (const mode of ['down', 'failing'] as const) {
        proxy.mode = mode;
        const run = await action(cached);
        expect({ mode, code: run.code, errors: errors(run) }).toEqual({ mode, code: 0, errors: [] });
        expect(run.env).toEqual(EXPECTED);
        expect(warnings(run).join('\n')).toMatch(
          /Using the values cached \d+ seconds? ago .*maximum age 1 hour/,
        );
      }
    });

    it('fails with an expired fallback', async () => {
      expect((await action({ 'cache-max-age': '1s' })).code).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      proxy.mode = 'down';
      const run = await action({ 'cache-max-age': '1s' });
      expect(run.code).toBe(1);
      expect(warnings(run).join('\n')).toMatch(/past the maximum age of 1 second/);
      expect(run.envFile).toBe('');
    });

    it('fails for a revoked key even with a fresh fallback, and deletes it', async () => {
      const label = `revoked-${Date.now()}`;
      const key = await vault.admin.createKey({ label, login: 'alice' });
      extraKeys.push(key);
      expect((await action(cached, STEP_ENV(), key)).code).toBe(0);
      await vault.admin.revokeKey(label);
      const revoked = await action(cached, STEP_ENV(), key);
      expect(revoked.code).toBe(1);
      expect(revoked.envFile).toBe('');
      expect(await readdir(join(home, '.cache', 'vaultline'))).toEqual([]);
    });
  });
});

it('exports each value exactly as a Windows runner reads it (CR LF line ends)', async () => {
  const run = await action({}, STEP_ENV(), aliceKey, 'windows');
  expect({ code: run.code, errors: errors(run) }).toEqual({ code: 0, errors: [] });
  expect(run.envFile).toContain('\r\n');
  expect(run.env).toEqual(EXPECTED);
});

it('parses file commands as the runner does', () => {
  expect(parseFileCommands('A=1\nB<<X\nline\r\n\nX\nC<<Y\nY\n')).toEqual({ A: '1', B: 'line\r\n', C: '' });
  expect(() => parseFileCommands('B<<X\nno end\n')).toThrow(/delimiter not found/);
  // Windows reads CR LF as a line end: a value's last CR is kept only when CR LF ends its line.
  expect(parseFileCommands('A=1\r\nB<<X\r\nline\r\r\nX\r\n', 'windows')).toEqual({ A: '1', B: 'line\r' });
  expect(parseFileCommands('B<<X\nline\r\nX\n', 'windows')).toEqual({ B: 'line' });
  expect(parseFileCommands('B<<X\nline\r\nX\n', 'linux')).toEqual({ B: 'line\r' });
});

describe('the GitHub Action against TeamPass 3 (login, password and API key)', () => {
  const alice = {
    login: 'alice',
    password: 'Alice-Pw-Zq9!x & <ü>',
    apiKey: 'aliceApiKey0123456789abcdefghijklmnopqrs',
  };
  let fake: TeamPass3Fake;

  beforeAll(async () => {
    fake = await startTeamPass3Fake({
      seed: {
        folders: [{ title: 'CI' }, { title: 'Ops' }],
        roles: [{ name: 'Deploy', folders: { CI: 'R' } }],
        users: [{ ...alice, roles: ['Deploy'] }],
        items: [
          { id: 1, label: 'db', folder: 'CI', password: VALUES.multiline },
          { id: 2, label: 'ops', folder: 'Ops', password: VALUES.ops },
        ],
      },
    });
  });
  afterAll(async () => {
    await fake?.close();
  });

  it('signs in as the login, resolves by path and id, masks and exports; refuses what the login may not read', async () => {
    const inputs = { url: fake.url, login: alice.login, password: alice.password, 'api-key': alice.apiKey };
    const run = await runAction({
      home,
      inputs,
      env: { DB: 'vaultline://CI/db/password', SAME: 'vaultline://1/password' },
    });
    runs.push(run);
    expect({ code: run.code, errors: errors(run) }).toEqual({ code: 0, errors: [] });
    expect(run.env).toEqual({ DB: VALUES.multiline, SAME: VALUES.multiline });
    expect(run.masks.slice(0, 2)).toEqual([alice.apiKey, alice.password]);
    const refused = await runAction({ home, inputs, env: { OPS: 'vaultline://2/password' } });
    runs.push(refused);
    expect(refused.code).toBe(1);
    expect(errors(refused)[0]).toMatch(/^OPS: /);
    expect(refused.envFile).toBe('');
    extraKeys.push(alice.password, alice.apiKey);
  });
});

describe('auth: oidc, keyless', () => {
  const REQUEST_TOKEN = 'runner-request-token-Qx81';
  let issuer: TestIssuer;
  let runner: Server;
  let runnerUrl: string;
  const asked: { audience: string | null; authorization: string | undefined }[] = [];
  const claims = { repository: 'acme/api', workflow: 'deploy', run_id: '901', ref: 'refs/heads/main' };

  beforeAll(async () => {
    issuer = await startTestIssuer();
    // The runner's token endpoint (ACTIONS_ID_TOKEN_REQUEST_URL): a token for the audience asked.
    runner = createServer((req, res) => {
      const audience = new URL(req.url ?? '/', 'http://runner').searchParams.get('audience');
      asked.push({ audience, authorization: req.headers.authorization });
      if (req.headers.authorization !== `Bearer ${REQUEST_TOKEN}`) return void res.writeHead(401).end();
      void issuer.sign({ ...claims, aud: audience ?? 'https://github.com/acme' }).then((value) => {
        extraKeys.push(value);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ value }));
      });
    });
    await new Promise<void>((resolve) => runner.listen(0, '127.0.0.1', resolve));
    runnerUrl = `http://127.0.0.1:${(runner.address() as AddressInfo).port}/token?api-version=2.0`;
    await vault.server.vault
      .adminAs({ principal: { kind: 'admin', keyLabel: '' }, name: 'test', keyLabel: '', address: 'test' })
      .addTrustPolicy({
        name: 'github-deploy',
        issuer: issuer.url,
        audience: 'vaultline-action',
        claims: { repository: 'acme/api', ref: 'refs/heads/main' },
        login: 'alice',
      });
    extraKeys.push(REQUEST_TOKEN);
  });
  afterAll(async () => {
    await new Promise((resolve) => runner?.close(resolve));
    await issuer?.close();
  });

  const oidcRun = async (inputs: Record<string, string>, env: Record<string, string>) => {
    const run = await runAction({ home, inputs: { url: vault.url, login: 'alice', ...inputs }, env });
    runs.push(run);
    return run;
  };
  const runnerEnv = () => ({
    ACTIONS_ID_TOKEN_REQUEST_URL: runnerUrl,
    ACTIONS_ID_TOKEN_REQUEST_TOKEN: REQUEST_TOKEN,
    CRLF: `vaultline://${ids.crlf}/password`,
  });

  it("exchanges the job's token for a key, masks both, and resolves with no stored secret", async () => {
    const run = await oidcRun({ auth: 'oidc', audience: 'vaultline-action' }, runnerEnv());
    expect({ code: run.code, errors: errors(run) }).toEqual({ code: 0, errors: [] });
    expect(run.env).toEqual({ CRLF: VALUES.crlf });
    expect(asked.at(-1)).toEqual({ audience: 'vaultline-action', authorization: `Bearer ${REQUEST_TOKEN}` });
    // The job's token, then the exchanged key, are masked before any value.
    expect(run.masks[0]).toMatch(/^ey/);
    expect(run.masks[1]).toMatch(/^vlk_/);
    extraKeys.push(run.masks[0]!, run.masks[1]!);
  });

  it('says the job needs id-token: write when the runner offers no token', async () => {
    const run = await oidcRun(
      { auth: 'oidc', audience: 'vaultline-action' },
      { CRLF: `vaultline://${ids.crlf}/password` },
    );
    expect(run.code).toBe(1);
    expect(errors(run)[0]).toMatch(/permissions: id-token: write/);
  });

  it('passes on why the vault refused the token, without the token', async () => {
    const run = await oidcRun({ auth: 'oidc', audience: 'another-audience' }, runnerEnv());
    expect(run.code).toBe(1);
    expect(errors(run)[0]).toMatch(/auth\/oidc failed: The token's audience is not the policy's/);
    expect(run.envFile).toBe('');
  });

  it('refuses oidc with a stored secret or without an audience', async () => {
    const withKey = await oidcRun(
      { auth: 'oidc', audience: 'vaultline-action', 'api-key': aliceKey },
      runnerEnv(),
    );
    expect(errors(withKey)[0]).toMatch(/remove api-key/);
    const noAudience = await oidcRun({ auth: 'oidc' }, runnerEnv());
    expect(errors(noAudience)[0]).toMatch(/needs audience/);
  });
});
