/**
 * Keyless CI and pods: `vaultline` with `VAULTLINE_URL` and an OIDC identity token (in
 * `VAULTLINE_OIDC_TOKEN`, or a file in `VAULTLINE_OIDC_TOKEN_FILE`) and no key exchanges the token
 * once for a short-lived key and reuses it until it expires or the token changes; a refused token
 * says why, and no token or key reaches the output.
 */

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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaks, recordingCli, tempHome } from './support/cli.ts';

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

/** The exchanges the vault made, from its audit. */
async function exchanges(): Promise<number> {
  const admin = vault.server.vault.adminAs({
    principal: { kind: 'admin', keyLabel: '' },
    name: 'test',
    keyLabel: '',
    address: 'test',
  });
  return (await admin.listAudit({ limit: 1000, action: 'auth/oidc' })).filter((r) => r.outcome === 'ok')
    .length;
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
  await vault.server.vault
    .adminAs({ principal: { kind: 'admin', keyLabel: '' }, name: 'test', keyLabel: '', address: 'test' })
    .addTrustPolicy({
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
