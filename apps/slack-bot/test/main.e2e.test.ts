import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFakeSlack } from './support/fake-slack.ts';

const MAIN = join(import.meta.dirname, '../src/main.ts');

/** Runs the real entry point with only the given environment, killing it after `timeout` ms. */
function runMain(
  env: Record<string, string>,
  timeout = 15_000,
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    // Asynchronous: the test's own servers (the fake Slack) answer while the bot runs.
    execFile(
      process.execPath,
      [MAIN],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stderr, stdout });
      },
    );
  });
}

describe('the vaultline-slack-bot entry point', () => {
  it('exits 1 listing every missing setting, without a stack trace', async () => {
    const { code, stderr } = await runMain({});
    expect(code).toBe(1);
    expect(stderr).toContain('SLACK_BOT_TOKEN is required');
    expect(stderr).toContain('VAULT_URL is required');
    expect(stderr).toContain('VAULT_API_KEY is required');
    expect(stderr).toContain('IDENTITY_MAP_FILE is required when IDENTITY_MODE=map');
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('names the bad line of the identity map file, and never prints the secrets', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'slack-bot-main-'));
    const map = join(dir, 'map.csv');
    await writeFile(map, 'UALICE,alice\nnot a line\n');
    const { code, stderr } = await runMain({
      SLACK_BOT_TOKEN: 'xoxb-main-test-token',
      SLACK_SIGNING_SECRET: 'main-test-signing-secret',
      VAULT_URL: 'http://127.0.0.1:9',
      VAULT_API_KEY: 'main-test-vault-key',
      IDENTITY_MAP_FILE: map,
      PORT: '0',
    });
    expect(code).toBe(1);
    expect(stderr).toContain(`${map}:2: expected`);
    expect(stderr).not.toMatch(/xoxb-main-test-token|main-test-signing-secret|main-test-vault-key/);
  });

  it('exits 1 saying the bot token was refused when Slack refuses it at start, without a stack trace', async () => {
    const slack = await startFakeSlack();
    slack.authAnswer = { ok: false, error: 'invalid_auth' };
    try {
      const dir = await mkdtemp(join(tmpdir(), 'slack-bot-main-'));
      const map = join(dir, 'map.csv');
      await writeFile(map, 'UALICE,alice\n');
      // It gets as far as opening its store (PGlite's initdb, slow on a busy machine) before it starts.
      const { code, stderr } = await runMain(
        {
          SLACK_BOT_TOKEN: 'xoxb-main-test-token',
          SLACK_SIGNING_SECRET: 'main-test-signing-secret',
          SLACK_API_URL: slack.apiUrl,
          // Listed: the bot asks Slack nothing itself, so only Bolt's check of the token runs.
          SLACK_TEAM_IDS: 'T1',
          VAULT_URL: 'http://127.0.0.1:9',
          VAULT_API_KEY: 'main-test-vault-key',
          IDENTITY_MAP_FILE: map,
          BOT_DATA_DIR: 'memory://',
          PORT: '0',
          HOST: '127.0.0.1',
        },
        60_000,
      );
      expect(stderr).toContain(
        'vaultline-slack-bot: Slack refused the bot token (auth.test: invalid_auth); check SLACK_BOT_TOKEN',
      );
      expect(code).toBe(1);
      expect(stderr).not.toMatch(/\n\s+at /);
      expect(stderr).not.toMatch(/xoxb-main-test-token|main-test-signing-secret|main-test-vault-key/);
      expect(slack.apiCalls('auth.test').length).toBe(1);
    } finally {
      await slack.close();
    }
  });

  it('exits 1 naming the port and the cause when the port is taken', async () => {
    const taken = createServer();
    taken.listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const port = (taken.address() as AddressInfo).port;
    const slack = await startFakeSlack();
    try {
      const dir = await mkdtemp(join(tmpdir(), 'slack-bot-main-'));
      const map = join(dir, 'map.csv');
      await writeFile(map, 'UALICE,alice\n');
      const { code, stderr } = await runMain(
        {
          SLACK_BOT_TOKEN: 'xoxb-main-test-token',
          SLACK_SIGNING_SECRET: 'main-test-signing-secret',
          SLACK_API_URL: slack.apiUrl,
          SLACK_TEAM_IDS: 'T1',
          VAULT_URL: 'http://127.0.0.1:9',
          VAULT_API_KEY: 'main-test-vault-key',
          IDENTITY_MAP_FILE: map,
          BOT_DATA_DIR: 'memory://',
          PORT: String(port),
          HOST: '127.0.0.1',
        },
        60_000,
      );
      expect(stderr).toContain(
        `vaultline-slack-bot: could not listen on 127.0.0.1:${port}: the port is already in use (EADDRINUSE); set PORT or HOST`,
      );
      expect(code).toBe(1);
      expect(stderr).not.toMatch(/\n\s+at /);
    } finally {
      await slack.close();
      taken.close();
    }
  });
});
