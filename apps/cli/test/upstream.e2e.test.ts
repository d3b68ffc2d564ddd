/**
 * CI through a Vaultline server in upstream mode: `VAULTLINE_URL` and a machine key, no password
 * anywhere; the server in front of the TeamPass 3 fake acts as one TeamPass account for every run.
 */

import { startTestVault, type TestVault } from '@vaultline/vault-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MASK } from '../src/constants.ts';
import { leaks, runCli, tempHome } from './support/cli.ts';
import {
  type SeededTeamPass3,
  startSeededTeamPass3,
  TOTP_SECRET,
  totpCode,
  USERS,
} from './support/teampass3.ts';

describe('vaultline against a server in front of TeamPass 3', () => {
  let teampass: SeededTeamPass3 | undefined;
  let vault: TestVault | undefined;
  let home: { dir: string; cleanup: () => Promise<void> } | undefined;
  let key = '';
  const ready = () => {
    if (!teampass || !vault || !home) throw new Error('read before beforeAll ran');
    return { teampass, vault, home };
  };

  beforeAll(async () => {
    teampass = await startSeededTeamPass3();
    vault = await startTestVault({ upstreamUrl: teampass.fake.url });
    home = await tempHome();
    const admin = vault.server.vault.adminAs({
      principal: { kind: 'admin', keyLabel: '' },
      name: 'test',
      keyLabel: '',
      address: 'test',
    });
    await admin.addUpstreamAccount({
      name: 'ci',
      url: teampass.fake.url,
      login: USERS.alice.login,
      method: 'password',
      secrets: { password: USERS.alice.password, apiKey: USERS.alice.apiKey },
    });
    const engineering = teampass.fake.folder('Engineering')!.id;
    key = await admin.createKey({
      label: 'ci-run',
      upstream: { account: 'ci', folders: [engineering], subfolders: true },
    });
  });

  afterAll(async () => {
    await vault?.close();
    await teampass?.fake.close();
    await home?.cleanup();
  });

  it('run resolves references with a machine key, within its scope, one TeamPass session for every run', async () => {
    const { teampass, vault, home } = ready();
    const env = {
      VAULTLINE_URL: vault.url,
      VAULTLINE_API_KEY: key,
      DB: `vaultline://${teampass.items['prod db']}/password`,
      TOKEN: `vaultline://${teampass.items['api token']}/password`,
    };
    const child = 'console.log([process.env.DB, process.env.TOKEN].join(" "))';
    const signIns = teampass.fake.signIns('alice');
    const runs = await Promise.all(
      Array.from({ length: 5 }, () =>
        runCli(home.dir, ['run', '--', process.execPath, '-e', child], { env }),
      ),
    );
    for (const result of runs) {
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe(`${MASK} ${MASK}\n`);
      expect(leaks(result, [...teampass.secrets, key])).toEqual([]);
    }
    // The server signed in once for all of them (and never again).
    expect(teampass.fake.signIns('alice')).toBe(signIns + 1);

    const outside = await runCli(home.dir, ['run', '--', process.execPath, '-e', child], {
      env: { ...env, DB: `vaultline://${teampass.items['ops secret']}/password` },
    });
    expect(outside.code).not.toBe(0);
    expect(leaks(outside, [...teampass.secrets, key])).toEqual([]);
  });

  it('read …/otp prints the one-time code TeamPass 3 computes, through the server, within the scope', async () => {
    const { teampass, vault, home } = ready();
    const env = { VAULTLINE_URL: vault.url, VAULTLINE_API_KEY: key };
    const reference = `vaultline://${teampass.items['github 2fa']}/otp`;
    const before = totpCode(TOTP_SECRET, teampass.fake.clock.now());
    const read = await runCli(home.dir, ['read', reference], { env });
    const after = totpCode(TOTP_SECRET, teampass.fake.clock.now());
    expect(read.code, read.stderr).toBe(0);
    // The code turns over every 30 s: it is the one before the read or the one after.
    expect([`${before}\n`, `${after}\n`]).toContain(read.stdout);
    expect(leaks(read, [...teampass.secrets, key])).toEqual([]);
  });

  it('learns whom the machine key acts as from the server: paths and ls need no VAULTLINE_LOGIN', async () => {
    const { teampass, vault, home } = ready();
    const env = { VAULTLINE_URL: vault.url, VAULTLINE_API_KEY: key, VAULTLINE_LOGIN: '' };
    const read = await runCli(home.dir, ['read', 'vaultline://Engineering/Databases/prod%20db/password'], {
      env,
    });
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toBe('Pg-Pr0d#2024!é\n');
    const listed = await runCli(home.dir, ['ls'], { env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('Engineering');
    expect(listed.stdout).not.toContain('Ops');
    expect(leaks(listed, [...teampass.secrets, key])).toEqual([]);
  });

  // Last: it leaves the account suspended.
  it('names the TeamPass behind the server when that is what failed, not the key or the server', async () => {
    const { teampass, vault, home } = ready();
    teampass.fake.updateUser('alice', { password: 'Changed-Under-The-Server-2' });
    teampass.fake.revokeSessions('alice');
    const env = { VAULTLINE_URL: vault.url, VAULTLINE_API_KEY: key };
    const read = await runCli(home.dir, ['read', `vaultline://${teampass.items['api token']}/password`], {
      env,
    });
    expect(read.code).not.toBe(0);
    expect(read.stderr).toMatch(/refused the credentials of account "ci"/);
    expect(read.stderr).toMatch(/the TeamPass behind it \(its upstream\)/);
    expect(read.stderr).not.toMatch(/VAULTLINE_API_KEY/);
    expect(leaks(read, [...teampass.secrets, key, 'Changed-Under-The-Server-2'])).toEqual([]);
  });
});
