/**
 * Keyless CI and pods: `vaultline` with `VAULTLINE_URL` and an OIDC identity token (in
 * `VAULTLINE_OIDC_TOKEN`, or a file in `VAULTLINE_OIDC_TOKEN_FILE`) and no key exchanges the token
 * once for a short-lived key and reuses it until it expires or the token changes; a refused token
 * says why, and no token or key reaches the output. `vaultline mcp`, which outlives its key,
 * exchanges again before the key expires, or once when the vault refuses it.
 */

import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createVaultClient, EXIT } from '@vaultline/protocol';
import {
  startTestIssuer,
  startTestVault,
  type TestIssuer,
  type TestVault,
} from '@vaultline/vault-server/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { leaks, recordingCli, tempHome } from './support/cli.ts';
import { type McpSession, startMcp } from './support/mcp.ts';
import { startsTimeout } from './support/timing.ts';

const AUDIENCE = 'vaultline-ci';
const DB = 'Pg-Oidc-Cli-Secret-7$';
const JOB = { aud: AUDIENCE, repository: 'acme/api', ref: 'refs/heads/main', run_id: '77' };

let vault: TestVault;
let issuer: TestIssuer;
let home: { dir: string; cleanup: () => Promise<void> };
let files: string;
let itemId = 0;
const tokens: string[] = [];

async function token(claims: Record<string, unknown> = {}): Promise<string> {
  const signed = await issuer.sign({ ...JOB, ...claims });
  tokens.push(signed);
  return signed;
}

function vaultAdmin() {
  return vault.server.vault.adminAs({
    principal: { kind: 'admin', keyLabel: '' },
    name: 'test',
    keyLabel: '',
    address: 'test',
  });
}

/** The exchanges the vault made, from its audit. */
async function exchanges(): Promise<number> {
  return (await vaultAdmin().listAudit({ limit: 1000, action: 'auth/oidc' })).filter(
    (r) => r.outcome === 'ok',
  ).length;
}

/** The exchanges the vault refused under a policy, from its audit. */
async function refusals(policy: string): Promise<number> {
  return (await vaultAdmin().listAudit({ limit: 1000, action: 'auth/oidc' })).filter(
    (r) => r.target === `trust policy ${policy}` && r.outcome.startsWith('refused'),
  ).length;
}

/** The live keys a policy issued, newest last. */
async function keysOf(policy: string) {
  return (await vaultAdmin().listKeys()).filter(
    (key) => key.label.startsWith(`oidc/${policy}/`) && key.revokedAt === null,
  );
}

/** Whether the vault issued a key for this very token. */
async function exchangedFor(signed: string): Promise<boolean> {
  const hash = createHash('sha256').update(signed).digest('hex');
  return (
    (await vault.server.vault.db.query('SELECT 1 FROM api_keys WHERE token_hash = $1', [hash])).length > 0
  );
}

const { cli, runs } = recordingCli(
  () => home.dir,
  () => ({ VAULTLINE_URL: vault.url, VAULTLINE_CACHE_DIR: join(home.dir, 'cache') }),
);

beforeAll(async () => {
  home = await tempHome();
  files = await mkdtemp(join(tmpdir(), 'vaultline-oidc-'));
  issuer = await startTestIssuer();
  vault = await startTestVault();
  const admin = createVaultClient({ baseUrl: vault.url, auth: vault.adminKey });
  await vault.admin.createUser({ login: 'ci' });
  await vault.admin.createRole({ name: 'deploy' });
  await vault.admin.assignRole('ci', 'deploy');
  const { id: folderId } = await admin.folders.create({ title: 'Prod', complexityLevel: 0, parentId: 0 });
  await vault.admin.grant('deploy', folderId, 'R');
  itemId = (await admin.items.create({ label: 'DB', password: DB, folderId })).id;
  await vaultAdmin().addTrustPolicy({
    name: 'ci',
    issuer: issuer.url,
    audience: AUDIENCE,
    claims: { repository: 'acme/api', ref: 'refs/heads/*' },
    login: 'ci',
  });
});

afterAll(async () => {
  await vault?.close();
  await issuer?.close();
  await rm(files, { recursive: true, force: true });
  await home?.cleanup();
  for (const run of runs) expect(leaks(run.result, [...tokens, vault.adminKey], run.allowed)).toEqual([]);
});

describe('vaultline with an OIDC token', () => {
  it('read exchanges the token once and reuses the key for the next commands', async () => {
    const env = { VAULTLINE_OIDC_TOKEN: await token() };
    const before = await exchanges();
    const first = await cli(['read', `vaultline://${itemId}/password`], { env, allowed: [DB] });
    expect(first).toMatchObject({ code: 0, stdout: `${DB}\n` });
    const second = await cli(
      ['run', '--', process.execPath, '-e', 'process.stdout.write(String(process.env.VAULTLINE_OIDC_TOKEN))'],
      {
        env: { ...env, DB_PASSWORD: `vaultline://${itemId}/password` },
      },
    );
    expect(second).toMatchObject({ code: 0, stdout: 'undefined' });
    expect(await exchanges()).toBe(before + 1);
  });

  it('reads the token from VAULTLINE_OIDC_TOKEN_FILE each time, exchanging again when it rotates', async () => {
    const path = join(files, 'token');
    await writeFile(path, `${await token({ run_id: '78' })}\n`);
    const env = { VAULTLINE_OIDC_TOKEN_FILE: path };
    const before = await exchanges();
    expect(await cli(['read', `vaultline://${itemId}/password`], { env, allowed: [DB] })).toMatchObject({
      code: 0,
    });
    expect(await cli(['read', `vaultline://${itemId}/password`], { env, allowed: [DB] })).toMatchObject({
      code: 0,
    });
    expect(await exchanges()).toBe(before + 1);
    await writeFile(path, `${await token({ run_id: '79' })}\n`);
    expect(await cli(['read', `vaultline://${itemId}/password`], { env, allowed: [DB] })).toMatchObject({
      code: 0,
    });
    expect(await exchanges()).toBe(before + 2);
  });

  it('says why the vault refused a token, with exit code 4, and shows no token', async () => {
    const refused = await token({ repository: 'evil/api' });
    const result = await cli(['read', `vaultline://${itemId}/password`], {
      env: { VAULTLINE_OIDC_TOKEN: refused },
    });
    expect(result.code).toBe(EXIT.auth);
    expect(result.stderr).toMatch(
      /refused the OIDC token of VAULTLINE_OIDC_TOKEN: The token's claim repository does not match/,
    );
    expect(result.stdout).toBe('');
  });

  it('says which file cannot be read', async () => {
    const result = await cli(['read', `vaultline://${itemId}/password`], {
      env: { VAULTLINE_OIDC_TOKEN_FILE: join(files, 'missing') },
    });
    expect(result.code).toBe(EXIT.auth);
    expect(result.stderr).toMatch(
      /VAULTLINE_OIDC_TOKEN_FILE names .*missing, which cannot be read \(ENOENT\)/,
    );
  });
});

describe('vaultline mcp with an OIDC token file', () => {
  /** The shortest key life a policy allows: the test waits for it once. */
  const TTL_SECONDS = 60;
  let mcp: McpSession | undefined;

  async function serve(policy: string, path: string): Promise<McpSession> {
    mcp = await startMcp({
      env: {
        VAULTLINE_URL: vault.url,
        VAULTLINE_CACHE_DIR: join(home.dir, 'cache'),
        VAULTLINE_OIDC_TOKEN_FILE: path,
        VAULTLINE_OIDC_POLICY: policy,
      },
      cwd: files,
      home: home.dir,
    });
    return mcp;
  }

  async function policy(name: string, ttlSeconds?: number) {
    await vaultAdmin().addTrustPolicy({
      name,
      issuer: issuer.url,
      audience: AUDIENCE,
      claims: { repository: `acme/${name}` },
      login: 'ci',
      ttlSeconds,
    });
  }

  afterEach(async () => {
    const session = mcp;
    mcp = undefined;
    if (!session) return;
    const log = session.stderr();
    const answers = session.answers.join('\n');
    await session.close();
    expect(
      leaks({ code: 0, signal: null, stdout: answers, stderr: log }, [...tokens, vault.adminKey]),
    ).toEqual([]);
  });

  it(
    'exchanges the rotated token for a new key when its key expires',
    async () => {
      await policy('mcp-short', TTL_SECONDS);
      const path = join(files, 'mcp-short-token');
      await writeFile(path, await token({ repository: 'acme/mcp-short', run_id: '90' }));
      const session = await serve('mcp-short', path);
      const before = await exchanges();
      expect(await session.call('list_folders', {})).toMatchObject({ isError: false });
      expect(await exchanges()).toBe(before + 1);
      const [key] = await keysOf('mcp-short');
      const rotated = await token({ repository: 'acme/mcp-short', run_id: '91' });
      await writeFile(path, rotated);
      const expiry = new Date(key!.expiresAt!).getTime();
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiry - Date.now()) + 1));
      const after = await session.call('list_folders', {});
      expect(after, after.text).toMatchObject({ isError: false });
      expect(await exchanges()).toBe(before + 2);
      expect(await exchangedFor(rotated)).toBe(true);
    },
    startsTimeout(1, TTL_SECONDS * 1000),
  );

  it('exchanges again once when the vault refuses its key, and says why when the token is refused', async () => {
    await policy('mcp-long');
    const path = join(files, 'mcp-long-token');
    await writeFile(path, await token({ repository: 'acme/mcp-long', run_id: '92' }));
    const session = await serve('mcp-long', path);
    const before = await exchanges();
    expect(await session.call('list_folders', {})).toMatchObject({ isError: false });
    const [first] = await keysOf('mcp-long');
    await vaultAdmin().revokeKey(first!.label);
    await writeFile(path, await token({ repository: 'acme/mcp-long', run_id: '93' }));
    const renewed = await session.call('list_folders', {});
    expect(renewed, renewed.text).toMatchObject({ isError: false });
    expect(await exchanges()).toBe(before + 2);

    // Revoked again, with a token whose key was revoked: the vault refuses to exchange it.
    const [second] = await keysOf('mcp-long');
    await vaultAdmin().revokeKey(second!.label);
    const refusedBefore = await refusals('mcp-long');
    const refused = await session.call('list_folders', {});
    expect(refused.isError).toBe(true);
    expect(refused.data).toMatchObject({
      error: {
        code: 'unauthorized',
        message: expect.stringMatching(
          /refused the OIDC token of VAULTLINE_OIDC_TOKEN_FILE: A key issued for this token was revoked/,
        ),
      },
    });
    expect(await refusals('mcp-long')).toBe(refusedBefore + 1);
    expect(await exchanges()).toBe(before + 2);
  });
});
