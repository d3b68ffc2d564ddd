/**
 * `vaultline-server upstream add|update|list|remove`, `keys create --upstream-account`, the master-key
 * rotation re-sealing upstream accounts, and the admin channel of a running server on PGlite: the
 * CLI in its own process against the TeamPass 3 fake.
 */

import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { startTeamPass3Fake, type TeamPass3Fake } from '@vaultline/protocol/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestVault } from '../src/testing.ts';
import { type CliResult, runCli, tempDirs } from './support/cli.ts';
import { rawRequest, setByBeforeAll, TEST_OPERATOR } from './support/helpers.ts';

const ALICE = {
  login: 'alice',
  password: 'Cli-Upstream-Pw-4$',
  apiKey: 'cliUpstreamApiKey0123456789abcdefghijkl',
};
const ITEM_PASSWORD = 'Cli-Item-Secret-31';
const newDir = tempDirs('vaultline-upstream-cli-');

describe('vaultline-server upstream', () => {
  let fake: TeamPass3Fake | undefined;
  const outputs: CliResult[] = [];
  const cli = async (args: string[], env: Record<string, string>, input?: string) => {
    const result = await runCli(args, { VAULTLINE_LOG_LEVEL: 'info', ...env }, 60_000, input);
    outputs.push(result);
    return result;
  };

  beforeAll(async () => {
    fake = await startTeamPass3Fake({
      seed: {
        folders: [{ id: 1, title: 'Engineering' }],
        roles: [{ name: 'Devs', folders: { Engineering: 'W' } }],
        users: [{ ...ALICE, roles: ['Devs'] }],
        items: [{ id: 7, label: 'deploy', folder: 'Engineering', password: ITEM_PASSWORD }],
      },
    });
  });

  afterAll(async () => {
    await fake?.close();
    const all = outputs.map((o) => o.stdout + o.stderr).join('\n');
    for (const secret of [ALICE.password, ALICE.apiKey, ITEM_PASSWORD, ...(fake?.tokens() ?? [])])
      expect(all).not.toContain(secret);
  });

  it('registers an account from stdin, lists it without secrets, binds keys, survives a master-key rotation', async () => {
    const teampass = setByBeforeAll(fake, 'the fake');
    const dataDir = await newDir();
    const env = { VAULTLINE_DATA_DIR: dataDir, VAULTLINE_UPSTREAM_URL: teampass.url };

    const wrong = await cli(
      ['upstream', 'add', '--name', 'bad', '--login', 'alice'],
      env,
      'nope\nnope-key\n',
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/refused these credentials: nothing was stored/);
    const short = await cli(
      ['upstream', 'add', '--name', 'bad', '--login', 'alice'],
      env,
      `${ALICE.password}\n`,
    );
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/Expected 2 secrets on stdin, one per line \(Password, API key\)/);

    const added = await cli(
      ['upstream', 'add', '--name', 'ci', '--login', 'alice'],
      env,
      `${ALICE.password}\n${ALICE.apiKey}\n`,
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toBe('Registered ci (TeamPass 3).\n');
    const listed = await cli(['upstream', 'list', '--json'], env);
    expect(JSON.parse(listed.stdout)).toMatchObject({
      name: 'ci',
      dialect: 'teampass3',
      login: 'alice',
      keys: 0,
    });

    const unbound = await cli(['keys', 'create', '--label', 'x', '--folder', '1'], env);
    expect(unbound.code).toBe(1);
    expect(unbound.stderr).toMatch(/need --upstream-account/);
    const noScope = await cli(['keys', 'create', '--label', 'x', '--upstream-account', 'ci'], env);
    expect(noScope.code).toBe(1);
    expect(noScope.stderr).toMatch(/Give the key a scope/);
    const created = await cli(
      [
        'keys',
        'create',
        '--label',
        'ci-read',
        '--upstream-account',
        'ci',
        '--folder',
        '1',
        '--expires',
        '30d',
        '--json',
      ],
      env,
    );
    expect(created.code, created.stderr).toBe(0);
    const { key } = JSON.parse(created.stdout) as { key: string };
    const keys = await cli(['keys', 'list', '--json'], env);
    expect(keys.stdout).toContain('"upstreamAccount":"ci"');
    expect(keys.stdout).not.toContain(key);
    expect((await cli(['upstream', 'remove', '--name', 'ci'], env)).stderr).toMatch(
      /ci-read\. Revoke them first/,
    );

    const rotated = await cli(['rotate-master-key'], env);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout).toMatch(/Re-sealed 1 upstream accounts\./);

    const vault = await startTestVault({ dataDir, upstreamUrl: teampass.url });
    try {
      const answer = await rawRequest(vault.url, '/api/index.php/read/items/7', {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(answer.status, answer.body).toBe(200);
      expect(JSON.parse(answer.body)[0].pw).toBe(ITEM_PASSWORD);
    } finally {
      await vault.close();
    }
    expect((await cli(['keys', 'revoke', '--label', 'ci-read'], env)).code).toBe(0);
    expect((await cli(['upstream', 'remove', '--name', 'ci'], env)).stdout).toBe('Removed ci.\n');
  }, 300_000);

  it('administers a running server on PGlite through its admin channel: keys and accounts, at once', async () => {
    const teampass = setByBeforeAll(fake, 'the fake');
    const dataDir = await newDir();
    const env = { VAULTLINE_DATA_DIR: dataDir, VAULTLINE_UPSTREAM_URL: teampass.url };
    const vault = await startTestVault({ dataDir, upstreamUrl: teampass.url });
    const read = (key: string) =>
      rawRequest(vault.url, '/api/index.php/read/items/7', { headers: { authorization: `Bearer ${key}` } });
    try {
      expect((await stat(join(dataDir, 'admin.sock'))).mode & 0o777).toBe(0o600);
      const added = await cli(
        ['upstream', 'add', '--name', 'ci', '--login', 'alice'],
        env,
        `${ALICE.password}\n${ALICE.apiKey}\n`,
      );
      expect(added.code, added.stderr).toBe(0);
      // --folder-path alone, resolved by the running server in the account's tree.
      const created = await cli(
        [
          'keys',
          'create',
          '--label',
          'pipeline',
          '--upstream-account',
          'ci',
          '--folder-path',
          'Engineering',
          '--json',
        ],
        env,
      );
      expect(created.code, created.stderr).toBe(0);
      const { key } = JSON.parse(created.stdout) as { key: string };
      const spare = JSON.parse(
        (
          await cli(
            ['keys', 'create', '--label', 'spare', '--upstream-account', 'ci', '--folder', '1', '--json'],
            env,
          )
        ).stdout,
      ) as { key: string };
      expect((await read(key)).status).toBe(200);

      // A changed TeamPass password is registered again while the server runs; its keys stay bound.
      const newPassword = 'Cli-Upstream-Pw-5%';
      teampass.updateUser('alice', { password: newPassword });
      try {
        teampass.revokeSessions('alice');
        expect((await read(key)).status).toBe(502);
        const replaced = await cli(
          ['upstream', 'add', '--replace', '--name', 'ci', '--login', 'alice'],
          env,
          `${newPassword}\n${ALICE.apiKey}\n`,
        );
        expect(replaced.code, replaced.stderr).toBe(0);
        expect(replaced.stdout).toBe('Registered again ci (TeamPass 3).\n');
        expect((await read(key)).status).toBe(200);
      } finally {
        teampass.updateUser('alice', { password: ALICE.password });
      }
      const updated = await cli(
        ['upstream', 'update', '--name', 'ci', '--login', 'alice'],
        env,
        `${ALICE.password}\n${ALICE.apiKey}\n`,
      );
      expect(updated.code, updated.stderr).toBe(0);
      expect((await read(spare.key)).status).toBe(200);

      // A revoked key is refused by the very next request.
      expect((await cli(['keys', 'revoke', '--label', 'pipeline'], env)).code).toBe(0);
      const refused = await read(key);
      expect(refused.status).toBe(401);
      expect(JSON.parse(refused.body).err).toBe('API key revoked.');
      const audit = await vault.server.vault.adminAs({ ...TEST_OPERATOR }).listAudit({ limit: 50 });
      expect(audit.find((entry) => entry.action === 'admin/key-revoke')).toMatchObject({
        target: 'key pipeline',
      });
      expect(audit.some((entry) => entry.action === 'admin/upstream-update')).toBe(true);
      const unknown = await cli(['upstream', 'update', '--name', 'nope', '--login', 'alice'], env, 'x\ny\n');
      expect(unknown.stderr).toMatch(/No upstream account named "nope"/);
    } finally {
      await vault.close();
    }
    await expect(stat(join(dataDir, 'admin.sock'))).rejects.toThrow();
    // Stopped: the commands open the data directory themselves again.
    expect((await cli(['keys', 'list', '--json'], env)).stdout).toContain('"label":"spare"');
  }, 300_000);
});
