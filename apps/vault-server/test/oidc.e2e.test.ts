/**
 * OIDC workload identity: a CI job or a pod exchanges its identity token for a short-lived key
 * (`POST /api/auth/oidc`), against a local issuer on 127.0.0.1 that signs with jose's keys. Tested
 * as an attacker would try it: every refused token gets a clear 401 and no key, and a key of a
 * revoked token or a removed policy reads nothing. Local mode on both stores, upstream mode in
 * front of the TeamPass 3 fake; no token, key or password in a log line, error or audit row.
 */

import { exchangeOidcToken } from '@vaultline/protocol';
import { startTeamPass3Fake, type TeamPass3Fake } from '@vaultline/protocol/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestIssuer, startTestVault, type TestIssuer, type TestVault } from '../src/testing.ts';
import type { VaultAdmin } from '../src/vault.ts';
import { runCli, tempDirs } from './support/cli.ts';
import {
  expectJsonError,
  expectNoSecrets,
  rawRequest,
  STORES,
  setByBeforeAll,
  TEST_OPERATOR,
} from './support/helpers.ts';
import { vaultForSuite } from './support/vault-for-suite.ts';

const AUDIENCE = 'https://vault.example.com';
/** What a GitHub Actions job's token carries, beside iss, aud, iat and exp. */
const GITHUB_JOB = {
  sub: 'repo:acme/api:ref:refs/heads/main',
  repository: 'acme/api',
  workflow: 'deploy',
  run_id: '8812',
  ref: 'refs/heads/main',
};

function exchange(url: string, body: unknown) {
  return rawRequest(url, '/api/auth/oidc', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

function readItems(url: string, key: string, ids: string) {
  return rawRequest(url, `/api/index.php/read/items/${ids}`, { headers: { authorization: `Bearer ${key}` } });
}

describe.each(STORES)('the OIDC exchange in local mode on %s', (store) => {
  const suite = vaultForSuite(store);
  let issuer: TestIssuer | undefined;
  let itemId = 0;
  const tokens: string[] = [];
  const the = () => setByBeforeAll(issuer, 'the issuer');
  const admin = (): VaultAdmin => suite.vault.server.vault.adminAs(TEST_OPERATOR);
  const sign = async (
    claims: Record<string, unknown> = {},
    options?: { kid?: string; unpublished?: boolean },
  ) => {
    const token = await the().sign({ aud: AUDIENCE, ...GITHUB_JOB, ...claims }, options);
    tokens.push(token);
    return token;
  };
  /** Expects a refusal with these words, and no key in the answer. */
  const expectRefused = async (token: string, words: RegExp, policy: string | null = 'deploy') => {
    tokens.push(token);
    const answer = await exchange(suite.vault.url, policy === null ? { token } : { token, policy });
    const body = expectJsonError(answer, 401, 'unauthorized');
    expect(body.err).toMatch(words);
    expect(answer.body).not.toMatch(/vlk_/);
    expect(answer.body).not.toContain(token);
  };

  beforeAll(async () => {
    issuer = await startTestIssuer();
    await suite.vault.admin.createUser({ login: 'deployer' });
    await suite.vault.admin.createRole({ name: 'deployers' });
    await suite.vault.admin.assignRole('deployer', 'deployers');
    const folder = await suite.admin.addFolder({ folder: { title: 'Deploy' } });
    await suite.vault.admin.grant('deployers', folder.id, 'R');
    itemId = (
      await suite.admin.addItem({
        item: { label: 'prod db', password: suite.pw('Prod-Db-Pw-1!'), folderId: folder.id },
      })
    ).id;
    await admin().addTrustPolicy({
      name: 'deploy',
      issuer: issuer.url,
      audience: AUDIENCE,
      claims: { repository: 'acme/api', ref: 'refs/heads/*' },
      login: 'deployer',
    });
  });

  afterAll(async () => {
    await issuer?.close();
    suite.secrets.push(...tokens);
    const audit = JSON.stringify(await admin().listAudit({ limit: 10_000 }));
    for (const secret of suite.secrets) expect(audit).not.toContain(secret);
  });

  it('exchanges a matching token for a key that reads what its user may, and audits who the job was', async () => {
    const token = await sign();
    const answer = await exchange(suite.vault.url, { token, policy: 'deploy' });
    expect(answer.status).toBe(200);
    const body = JSON.parse(answer.body) as {
      key: string;
      label: string;
      expires_at: string;
      policy: string;
    };
    suite.secrets.push(body.key);
    expect(body).toMatchObject({
      policy: 'deploy',
      login: 'deployer',
      label: expect.stringMatching(/^oidc\/deploy\//),
    });
    const lifetime = Date.parse(body.expires_at) - Date.now();
    // The token lives 5 minutes, less than the policy's 15: the key ends with the token.
    expect(lifetime).toBeGreaterThan(0);
    expect(lifetime).toBeLessThanOrEqual(300_000);
    const read = await readItems(suite.vault.url, body.key, String(itemId));
    expect(read.status).toBe(200);
    expect(JSON.parse(read.body)[0]).toMatchObject({ pw: 'Prod-Db-Pw-1!' });
    const job = {
      policy: 'deploy',
      repository: 'acme/api',
      workflow: 'deploy',
      run_id: '8812',
      ref: 'refs/heads/main',
      iss: the().url,
    };
    const records = await admin().listAudit({ limit: 50 });
    const exchanged = records.find((r) => r.action === 'auth/oidc' && r.keyLabel === body.label);
    expect(exchanged).toMatchObject({ outcome: 'ok', actor: 'oidc:deploy', identity: job });
    // Reads are audited in batches, written shortly after: wait for the read's record.
    const ofRead = async () =>
      (await admin().listAudit({ limit: 50 })).find(
        (r) => r.action === 'read/items' && r.keyLabel === body.label,
      );
    let record = await ofRead();
    while (record === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      record = await ofRead();
    }
    expect(record).toMatchObject({ actor: 'deployer', target: `items ${itemId}`, identity: job });
  });

  it('finds the policy by issuer when none is named', async () => {
    const answer = await exchange(suite.vault.url, { token: await sign() });
    expect(answer.status).toBe(200);
    suite.secrets.push((JSON.parse(answer.body) as { key: string }).key);
  });

  it('refuses a token whose claim does not match, naming the claim but not its value', async () => {
    await expectRefused(await sign({ repository: 'acme/api-fork' }), /claim repository does not match/);
    await expectRefused(await sign({ ref: 'refs/tags/v1' }), /claim ref does not match/);
    await expectRefused(await sign({ repository: undefined }), /claim repository does not match/);
  });

  it('refuses an expired token, one not valid yet, and one older than the policy allows', async () => {
    const now = Math.floor(Date.now() / 1000);
    await expectRefused(await sign({ iat: now - 600, exp: now - 120 }), /expired/);
    await expectRefused(await sign({ nbf: now + 600, exp: now + 900 }), /not valid yet/);
    await expectRefused(await sign({ iat: now - 7200, exp: now + 600 }), /older than the policy allows/);
  });

  it('refuses a wrong audience and a wrong issuer', async () => {
    await expectRefused(await sign({ aud: 'https://other.example.com' }), /audience/);
    await expectRefused(await sign({ iss: 'https://token.actions.githubusercontent.com' }), /issuer/);
    await expectRefused(
      await sign({ iss: 'https://token.actions.githubusercontent.com' }),
      /No trust policy/,
      null,
    );
  });

  it('refuses alg none, HS256 signed with the public key, and a key the issuer never published', async () => {
    await expectRefused(
      the().unsigned({ aud: AUDIENCE, ...GITHUB_JOB }),
      /algorithm that is not accepted|well-formed/,
    );
    await expectRefused(
      await the().hmacWithPublicKey({ aud: AUDIENCE, ...GITHUB_JOB }),
      /algorithm that is not accepted/,
    );
    await expectRefused(await sign({}, { unpublished: true }), /signature does not verify/);
    await expectRefused(await sign({}, { kid: 'not-in-the-set' }), /key id/);
  });

  it('does not refetch the key set for unknown kids within the cooldown', async () => {
    const before = the().fetches.jwks;
    for (const kid of ['x1', 'x2', 'x3']) await expectRefused(await sign({}, { kid }), /key id/);
    expect(the().fetches.jwks).toBeLessThanOrEqual(before + 1);
  });

  it('keeps exchanging with the cached key set while the issuer is down or slow', async () => {
    for (const mode of ['down', 'slow'] as const) {
      the().setMode(mode);
      const answer = await exchange(suite.vault.url, { token: await sign(), policy: 'deploy' });
      expect(answer.status).toBe(200);
      suite.secrets.push((JSON.parse(answer.body) as { key: string }).key);
    }
    the().release();
    the().setMode('up');
  });

  it('refuses a token replayed after its key was revoked', async () => {
    const token = await sign();
    const first = JSON.parse((await exchange(suite.vault.url, { token, policy: 'deploy' })).body) as {
      key: string;
      label: string;
    };
    suite.secrets.push(first.key);
    await admin().revokeKey(first.label);
    expect((await readItems(suite.vault.url, first.key, String(itemId))).status).toBe(401);
    await expectRefused(token, /was revoked/);
  });

  it('stops the keys of a removed policy, and refuses its tokens', async () => {
    await admin().addTrustPolicy({
      name: 'short-lived',
      issuer: the().url,
      audience: AUDIENCE,
      claims: { sub: 'repo:acme/api:*' },
      login: 'deployer',
      ttlSeconds: 120,
    });
    const token = await sign();
    const answer = await exchange(suite.vault.url, { token, policy: 'short-lived' });
    const { key, expires_at } = JSON.parse(answer.body) as { key: string; expires_at: string };
    suite.secrets.push(key);
    expect(Date.parse(expires_at) - Date.now()).toBeLessThanOrEqual(120_000);
    expect((await readItems(suite.vault.url, key, String(itemId))).status).toBe(200);
    expect(await admin().removeTrustPolicy('short-lived')).toEqual({ revoked: 1 });
    const after = await readItems(suite.vault.url, key, String(itemId));
    expect(after.status).toBe(401);
    expect(after.body).not.toContain('Prod-Db-Pw-1!');
    await expectRefused(token, /No trust policy named/, 'short-lived');
  });

  it('refuses bad requests: GET, a token in the URL, no JSON, extra fields', async () => {
    const token = await sign();
    expectJsonError(
      await rawRequest(suite.vault.url, `/api/auth/oidc?token=${token}`),
      400,
      'invalid_request',
    );
    const text = await rawRequest(suite.vault.url, '/api/auth/oidc', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: token,
    });
    expectJsonError(text, 400, 'invalid_request');
    expectJsonError(await exchange(suite.vault.url, { token, apikey: 'x' }), 400, 'invalid_request');
  });

  it('is what the protocol core exchanges through, with the server words in its error and no token', async () => {
    const exchanged = await exchangeOidcToken({ baseUrl: suite.vault.url, token: await sign() });
    suite.secrets.push(exchanged.apiKey);
    expect(exchanged.expiresAt).toBeGreaterThan(Date.now());
    const refused = await sign({ repository: 'evil/api' });
    const error = await exchangeOidcToken({
      baseUrl: suite.vault.url,
      token: refused,
      policy: 'deploy',
    }).catch((caught: unknown) => caught as Error);
    expect(error).toMatchObject({ code: 'unauthorized', status: 401 });
    expect((error as Error).message).toMatch(/claim repository does not match/);
    expect(JSON.stringify(error)).not.toContain(refused);
  });

  it('writes no token into the log', () => {
    expectNoSecrets(suite.logLines, tokens);
  });
});

describe('trust policies refuse what would trust too much', () => {
  let vault: TestVault | undefined;
  beforeAll(async () => {
    vault = await startTestVault();
    await vault.admin.createUser({ login: 'deployer' });
  });
  afterAll(() => vault?.close());
  const admin = () => setByBeforeAll(vault, 'the vault').server.vault.adminAs(TEST_OPERATOR);
  const base = { name: 'p', audience: AUDIENCE, login: 'deployer', claims: { repository: 'acme/api' } };

  it.each([
    [{ issuer: 'http://token.example.com' }, /https:\/\//],
    [{ issuer: 'https://token.example.com', claims: {} }, /at least one --claim/],
    [{ issuer: 'https://token.example.com', claims: { sub: 'repo:*' } }, /unsafe pattern/],
    [{ issuer: 'https://token.example.com', login: undefined }, /--user <login> or to --upstream-account/],
    [{ issuer: 'https://token.example.com', ttlSeconds: 86_400 }, /--ttl/],
  ])('refuses %j', async (override, words) => {
    await expect(admin().addTrustPolicy({ ...base, ...override })).rejects.toThrow(words);
    expect(await admin().listTrustPolicies()).toEqual([]);
  });

  it('audits the policies added and removed', async () => {
    await admin().addTrustPolicy({ ...base, name: 'audited', issuer: 'https://token.example.com' });
    await admin().removeTrustPolicy('audited');
    const records = await admin().listAudit({ limit: 10 });
    expect(records.map((r) => [r.action, r.target])).toEqual(
      expect.arrayContaining([
        ['admin/trust-add', 'trust policy audited'],
        ['admin/trust-remove', 'trust policy audited (0 keys revoked)'],
      ]),
    );
  });
});

describe('the OIDC exchange in upstream mode, in front of TeamPass 3', () => {
  const ALICE = {
    login: 'alice',
    password: 'Alice-Oidc-Pw-3#',
    apiKey: 'aliceOidcApiKey0123456789abcdefghijklm',
  };
  let fake: TeamPass3Fake | undefined;
  let vault: TestVault | undefined;
  let issuer: TestIssuer | undefined;
  const logLines: string[] = [];
  const secrets: string[] = [ALICE.password, ALICE.apiKey, 'Db-Upstream-Pw-4', 'Ops-Upstream-Pw-5'];
  const admin = () => setByBeforeAll(vault, 'the vault').server.vault.adminAs(TEST_OPERATOR);

  beforeAll(async () => {
    fake = await startTeamPass3Fake({
      seed: {
        folders: [
          { id: 1, title: 'Engineering', children: [{ id: 2, title: 'Databases' }] },
          { id: 4, title: 'Ops' },
        ],
        roles: [{ name: 'Devs', folders: { Engineering: 'W', 'Engineering/Databases': 'W', Ops: 'W' } }],
        users: [{ ...ALICE, roles: ['Devs'] }],
        items: [
          { id: 1, label: 'prod db', folder: 'Engineering/Databases', password: 'Db-Upstream-Pw-4' },
          { id: 4, label: 'ops secret', folder: 'Ops', password: 'Ops-Upstream-Pw-5' },
        ],
      },
    });
    issuer = await startTestIssuer();
    vault = await startTestVault({ upstreamUrl: fake.url, logLines });
    await admin().addUpstreamAccount({
      name: 'ci',
      url: fake.url,
      login: ALICE.login,
      method: 'password',
      secrets: { password: ALICE.password, apiKey: ALICE.apiKey },
    });
    await admin().addTrustPolicy({
      name: 'k8s-payments',
      issuer: issuer.url,
      audience: 'vaultline',
      claims: { sub: 'system:serviceaccount:payments:api' },
      upstream: { account: 'ci', folders: [], paths: ['Engineering'], subfolders: true },
    });
  });

  afterAll(async () => {
    await vault?.close();
    await issuer?.close();
    await fake?.close();
    secrets.push(...(fake?.tokens() ?? []));
    expectNoSecrets(logLines, secrets);
  });

  it('issues a read-only key cut to the policy scope, audited with the namespace and service account', async () => {
    const token = await setByBeforeAll(issuer, 'the issuer').sign({
      aud: 'vaultline',
      sub: 'system:serviceaccount:payments:api',
      'kubernetes.io': {
        namespace: 'payments',
        serviceaccount: { name: 'api', uid: 'u1' },
        pod: { name: 'api-7f' },
      },
    });
    secrets.push(token);
    const { url } = setByBeforeAll(vault, 'the vault');
    const answer = await exchange(url, { token });
    expect(answer.status).toBe(200);
    const { key, label } = JSON.parse(answer.body) as { key: string; label: string };
    secrets.push(key);
    const read = await readItems(url, key, '1;4');
    expect(read.status).toBe(200);
    expect((JSON.parse(read.body) as { id: string }[]).map((item) => Number(item.id))).toEqual([1]);
    const write = await rawRequest(url, '/api/index.php/delete/item/1', {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(write.status).toBe(403);
    const records = await admin().listAudit({ limit: 50 });
    expect(records.find((r) => r.action === 'auth/oidc' && r.keyLabel === label)?.identity).toMatchObject({
      namespace: 'payments',
      serviceaccount: 'api',
      pod: 'api-7f',
      sub: 'system:serviceaccount:payments:api',
    });
    expect(JSON.stringify(records)).not.toContain(key);
  });

  it('keeps the upstream account while a policy binds keys to it', async () => {
    await expect(admin().removeUpstreamAccount('ci')).rejects.toThrow(
      /Trust policies still issue keys acting as "ci": k8s-payments/,
    );
  });

  it('stops the keys when the policy is removed', async () => {
    const token = await setByBeforeAll(issuer, 'the issuer').sign({
      aud: 'vaultline',
      sub: 'system:serviceaccount:payments:api',
    });
    secrets.push(token);
    const { url } = setByBeforeAll(vault, 'the vault');
    const { key } = JSON.parse((await exchange(url, { token })).body) as { key: string };
    secrets.push(key);
    expect((await readItems(url, key, '1')).status).toBe(200);
    await admin().removeTrustPolicy('k8s-payments');
    expect((await readItems(url, key, '1')).status).toBe(401);
  });

  it('removes the account once no policy nor live key of an operator binds it, and no key outlives it', async () => {
    const { url } = setByBeforeAll(vault, 'the vault');
    await admin().addTrustPolicy({
      name: 'k8s-batch',
      issuer: setByBeforeAll(issuer, 'the issuer').url,
      audience: 'vaultline',
      claims: { sub: 'system:serviceaccount:batch:job' },
      upstream: { account: 'ci', folders: [1] },
    });
    const token = await setByBeforeAll(issuer, 'the issuer').sign({
      aud: 'vaultline',
      sub: 'system:serviceaccount:batch:job',
    });
    secrets.push(token);
    const exchanged = JSON.parse((await exchange(url, { token })).body) as { key: string; label: string };
    secrets.push(exchanged.key);
    const live = await admin().createKey({ label: 'ops-read', upstream: { account: 'ci', folders: [1] } });
    const expiresAt = new Date(Date.now() + 1_000);
    const old = await admin().createKey({
      label: 'ops-old',
      upstream: { account: 'ci', folders: [1] },
      expiresAt,
    });
    secrets.push(live, old);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt.getTime() - Date.now()) + 1));
    expect((await readItems(url, old, '1')).status).toBe(401);

    // What binds the account is named at once, with what to run; neither expired keys nor the
    // policy's own keys are among it.
    expect(await admin().listUpstreamAccounts()).toMatchObject([
      { name: 'ci', keys: 1, trustPolicies: ['k8s-batch'] },
    ]);
    const refusal = await admin()
      .removeUpstreamAccount('ci')
      .then(
        () => '',
        (error: Error) => error.message,
      );
    expect(refusal).toMatch(
      /Trust policies still issue keys acting as "ci": k8s-batch\. Remove them first \(vaultline-server trust remove --name k8s-batch\)\./,
    );
    expect(refusal).toMatch(
      /Keys still act as "ci": ops-read\. Revoke them first \(vaultline-server keys revoke --label ops-read\)\./,
    );
    expect(refusal).not.toMatch(/ops-old|oidc\//);

    await admin().removeTrustPolicy('k8s-batch');
    await admin().revokeKey('ops-read');
    await admin().removeUpstreamAccount('ci');
    const left = (await admin().listKeys()).filter((key) =>
      ['ops-read', 'ops-old', exchanged.label].includes(key.label),
    );
    expect(left).toHaveLength(3);
    for (const key of left)
      expect(key).toMatchObject({ upstreamAccount: null, revokedAt: expect.any(String) });
  });
});

describe('vaultline-server trust', () => {
  const tempDir = tempDirs('vaultline-trust-');

  it('adds and lists policies, refusing unsafe ones with a clear error before opening the vault', async () => {
    const env = { VAULTLINE_DATA_DIR: await tempDir() };
    expect((await runCli(['users', 'create', '--login', 'deploy'], env)).code).toBe(0);
    const base = [
      'trust',
      'add',
      '--issuer',
      'https://token.actions.githubusercontent.com',
      '--audience',
      AUDIENCE,
    ];
    const unsafe = await runCli(
      [...base, '--name', 'wide', '--claim', 'sub=repo:*', '--user', 'deploy'],
      env,
    );
    expect(unsafe.code).toBe(1);
    expect(unsafe.stderr).toMatch(/claim sub has an unsafe pattern/);
    const unbound = await runCli([...base, '--name', 'unbound', '--claim', 'repository=acme/api'], env);
    expect(unbound.code).toBe(1);
    expect(unbound.stderr).toMatch(/--user <login> or to --upstream-account/);
    const added = await runCli(
      [
        ...base,
        '--name',
        'api',
        '--claim',
        'repository=acme/api',
        '--claim',
        'ref=refs/heads/*',
        '--user',
        'deploy',
        '--ttl',
        '10m',
      ],
      env,
    );
    expect(added, added.stderr).toMatchObject({ code: 0, stdout: 'Added trust policy api.\n' });
    const listed = await runCli(['trust', 'list', '--json'], env);
    expect(JSON.parse(listed.stdout.trim())).toMatchObject({
      name: 'api',
      claims: { repository: 'acme/api', ref: 'refs/heads/*' },
      login: 'deploy',
      ttlSeconds: 600,
    });
  });
});
