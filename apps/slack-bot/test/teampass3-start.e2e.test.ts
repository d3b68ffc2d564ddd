// Starting against TeamPass 3: the settings a linking vault needs, a restart that signs in no
// more (the sealed session token is reused), and the encryption key's rotation.
import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startReplayServer } from '@vaultline/protocol/testing';
import { keyIdOf, legacyLinkKeyId } from '@vaultline/sealer';
import { sealLegacyLinkText } from '@vaultline/sealer/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBot } from '../src/app.ts';
import { ConfigError, readConfig } from '../src/env.ts';
import { createSealer, parseLinkKey } from '../src/linking/sealer.ts';
import { BOT_TOKEN, nextId, SIGNING_SECRET, startBot, type TestBot } from './support/bot.ts';
import { type FakeSlack, startFakeSlack } from './support/fake-slack.ts';
import { buttonsOf, labelsOf } from './support/messages.ts';
import {
  driver,
  linkKey,
  type SeededTeamPass3,
  startSeededTeamPass3,
  TP3_SLACK,
  TP3_USERS,
} from './support/teampass3.ts';

const MAIN = join(import.meta.dirname, '../src/main.ts');

let tp: SeededTeamPass3;
let slack: FakeSlack;

beforeAll(async () => {
  [tp, slack] = await Promise.all([startSeededTeamPass3(), startFakeSlack()]);
  slack.channelIntervalMs = 0;
});
afterAll(async () => {
  await slack?.close();
  await tp?.fake.close();
});

/** Runs the real entry point with only the given environment. */
function runMain(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 20_000 },
      (error, _stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stderr });
      },
    );
  });
}

describe('the settings a vault needs', () => {
  it('refuses to start against TeamPass 3 without LINK_ENCRYPTION_KEY, saying why, never a secret', async () => {
    const { code, stderr } = await runMain({
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      VAULT_URL: tp.fake.url,
      VAULT_API_KEY: 'start-test-vault-key-0123',
      IDENTITY_MAP_FILE: '/nonexistent/map.csv',
      PORT: '0',
      BOT_DATA_DIR: 'memory://',
    });
    expect(code).toBe(1);
    expect(stderr).toContain(
      'LINK_ENCRYPTION_KEY is required: the vault at VAULT_URL has no key that reads every person',
    );
    expect(stderr).not.toMatch(/start-test-vault-key|xoxb-|\n\s+at /);
  });

  it('refuses to start against a legacy vault without VAULT_API_KEY, even with a link key', async () => {
    const legacy = await startReplayServer({ apiKey: 'replay-key' });
    try {
      const config = readConfig({
        SLACK_BOT_TOKEN: BOT_TOKEN,
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        VAULT_URL: legacy.url,
        LINK_ENCRYPTION_KEY: linkKey(),
        BOT_DATA_DIR: 'memory://',
      });
      const failure = await createBot(config, { logDestination: { write: () => undefined } }).catch(
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(ConfigError);
      expect((failure as ConfigError).problems).toEqual([
        "VAULT_API_KEY is required: the vault at VAULT_URL reads each person's rights with the bot's key",
        'IDENTITY_MAP_FILE is required when IDENTITY_MODE=map',
      ]);
    } finally {
      await legacy.close();
    }
  });

  it('refuses a malformed key by name, never with its value', () => {
    expect(() =>
      readConfig({
        SLACK_BOT_TOKEN: BOT_TOKEN,
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        VAULT_URL: tp.fake.url,
        LINK_ENCRYPTION_KEY: 'too-short-secret-key',
      }),
    ).toThrow(/LINK_ENCRYPTION_KEY must be 32 random bytes in base64/);
  });
});

describe('restarts and the key’s rotation', () => {
  let dataDir: string;
  const first = linkKey();
  const second = linkKey();
  const env = (extra: Record<string, string>) => ({
    VAULT_URL: tp.fake.url,
    SLACK_API_URL: slack.apiUrl,
    BOT_DATA_DIR: dataDir,
    COMMAND_RATE_LIMIT: '1000',
    ...extra,
  });
  /** Starts a bot on the data directory, runs `work`, stops it. */
  async function withBot<T>(extra: Record<string, string>, work: (bot: TestBot) => Promise<T>): Promise<T> {
    const bot = await startBot(env(extra));
    try {
      return await work(bot);
    } finally {
      await bot.stop();
    }
  }

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'slack-bot-tp3-'));
  });

  it('keeps the link and its session across a restart: no sign-in at all after it', async () => {
    await withBot({ LINK_ENCRYPTION_KEY: first }, async (bot) => {
      const run = driver(bot, slack);
      await run.link(TP3_SLACK.alice, TP3_USERS.alice);
      expect(labelsOf((await run.ask(TP3_SLACK.alice, 'find github')).answer)).toEqual(['github-deploy']);
    });
    const signIns = tp.fake.signIns('alice');
    expect(signIns).toBe(1);
    await withBot({ LINK_ENCRYPTION_KEY: first }, async (bot) => {
      const run = driver(bot, slack);
      expect(labelsOf((await run.ask(TP3_SLACK.alice, 'find staging')).answer)).toEqual(['staging-db']);
    });
    expect(tp.fake.signIns('alice')).toBe(signIns);
  });

  it('opens links sealed in the bot’s first format and seals them again in the current one at start', async () => {
    const key = parseLinkKey(first) ?? Buffer.alloc(32);
    const sealer = createSealer(key);
    // The link as the bot before @vaultline/sealer wrote it: `v1.` values, the key named by its old id.
    await withBot({ LINK_ENCRYPTION_KEY: first }, async (bot) => {
      const db = bot.bot.deps.db;
      const [row] = await db.query<
        Record<'slack_user' | 'version' | 'login' | 'credentials', string> & { session_token: string | null }
      >('SELECT slack_user, version, login, credentials, session_token FROM linked_accounts');
      const { slack_user: user, version, login, session_token: token } = row!;
      const credentials = `credentials/${user}/${version}/${login}`;
      expect(token).not.toBeNull();
      await db.query('UPDATE linked_accounts SET credentials = $1, session_token = $2, key_id = $3', [
        sealLegacyLinkText(key, sealer.open(row!.credentials, credentials)!, credentials),
        sealLegacyLinkText(
          key,
          sealer.open(token!, `session/${user}/${version}`)!,
          `session/${user}/${version}`,
        ),
        legacyLinkKeyId(key),
      ]);
    });
    const signIns = tp.fake.signIns('alice');
    await withBot({ LINK_ENCRYPTION_KEY: first }, async (bot) => {
      expect(bot.logLines.join('\n')).toContain('"resealed":1');
      const rows = await bot.bot.deps.db.query<Record<'key_id' | 'credentials' | 'session_token', string>>(
        'SELECT key_id, credentials, session_token FROM linked_accounts',
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]!.key_id).toBe(keyIdOf(key));
      for (const value of [rows[0]!.credentials, rows[0]!.session_token]) {
        expect(value.startsWith('v1.')).toBe(false);
        expect(sealer.isStale(value)).toBe(false);
      }
      const run = driver(bot, slack);
      expect(labelsOf((await run.ask(TP3_SLACK.alice, 'find github')).answer)).toEqual(['github-deploy']);
    });
    // The session token came through too: no sign-in.
    expect(tp.fake.signIns('alice')).toBe(signIns);
  });

  it('seals every link again with a new key when the old one is kept in LINK_PREVIOUS_KEYS', async () => {
    const keyId = (text: string) => keyIdOf(parseLinkKey(text) ?? Buffer.alloc(32));
    await withBot({ LINK_ENCRYPTION_KEY: second, LINK_PREVIOUS_KEYS: first }, async (bot) => {
      const rows = await bot.bot.deps.db.query<{ key_id: string }>('SELECT key_id FROM linked_accounts');
      expect(rows).toEqual([{ key_id: keyId(second) }]);
      expect(bot.logLines.join('\n')).toContain('"resealed":1');
      const run = driver(bot, slack);
      expect(labelsOf((await run.ask(TP3_SLACK.alice, 'find github')).answer)).toEqual(['github-deploy']);
    });
    // Once sealed again, the old key is no longer needed; the session token survived it too.
    const signIns = tp.fake.signIns('alice');
    await withBot({ LINK_ENCRYPTION_KEY: second }, async (bot) => {
      const run = driver(bot, slack);
      expect(labelsOf((await run.ask(TP3_SLACK.alice, 'find wifi')).answer)).toEqual(['office-wifi']);
    });
    expect(tp.fake.signIns('alice')).toBe(signIns);
  });

  it('asks people to link again when no configured key opens their link, and says so at start', async () => {
    await withBot({ LINK_ENCRYPTION_KEY: linkKey() }, async (bot) => {
      expect(bot.logLines.join('\n')).toContain('"unreadable":1');
      const run = driver(bot, slack);
      const { answer } = await run.ask(TP3_SLACK.alice, 'find github');
      expect(answer.text).toContain('can no longer read your linked account');
      expect(buttonsOf(answer).map((button) => button.action_id)).toEqual(['vault_link_open']);
      // Linking again replaces it.
      await run.link(TP3_SLACK.alice, TP3_USERS.alice);
      expect(labelsOf((await run.ask(TP3_SLACK.alice, 'find github')).answer)).toEqual(['github-deploy']);
    });
  });
});

describe('Socket Mode, logging at debug level', () => {
  it('links over the socket, and no log line carries what was typed in the form or after /vault link', async () => {
    const bot = await startBot({
      SLACK_MODE: 'socket',
      SLACK_SIGNING_SECRET: '',
      SLACK_API_URL: slack.apiUrl,
      VAULT_URL: tp.fake.url,
      LINK_ENCRYPTION_KEY: linkKey(),
      LOG_LEVEL: 'debug',
    });
    try {
      await slack.connected();
      const typed = 'Typed-Over-Socket-Pw-31';
      await slack.sendEnvelope('slash_commands', {
        command: '/vault',
        text: `link bob ${typed}`,
        user_id: TP3_SLACK.bob,
        channel_id: 'C1',
        team_id: 'T1',
        response_url: slack.responseUrl(nextId()),
        trigger_id: 't',
      });
      const opens = slack.apiCalls('views.open').length;
      await slack.sendEnvelope('interactive', {
        type: 'block_actions',
        user: { id: TP3_SLACK.bob, team_id: 'T1' },
        team: { id: 'T1' },
        api_app_id: 'A1',
        trigger_id: 'trigger-socket',
        container: { type: 'view', view_id: 'VHOMEUBOB' },
        view: { id: 'VHOMEUBOB', type: 'home', state: { values: {} } },
        actions: [{ type: 'button', action_id: 'vault_link_open', block_id: 'link_actions', action_ts: '1' }],
      });
      const open = await slack.waitFor(() => slack.apiCalls('views.open')[opens]);
      const externalId = String((JSON.parse(String(open.body.view)) as { external_id?: string }).external_id);
      const updates = slack.apiCalls('views.update').length;
      const field = (value: string) => ({ value: { type: 'plain_text_input', value } });
      await slack.sendEnvelope('interactive', {
        type: 'view_submission',
        user: { id: TP3_SLACK.bob, team_id: 'T1' },
        team: { id: 'T1' },
        api_app_id: 'A1',
        view: {
          id: slack.externalIds.get(externalId),
          type: 'modal',
          callback_id: 'vault_link_modal',
          external_id: externalId,
          state: {
            values: {
              link_login: field('bob'),
              link_password: field(TP3_USERS.bob.password),
              link_api_key: field(TP3_USERS.bob.apiKey),
            },
          },
        },
      });
      const done = await slack.waitFor(() =>
        slack
          .apiCalls('views.update')
          .slice(updates)
          .find((call) => String(call.body.view).includes('Linked to the TeamPass account bob')),
      );
      expect(done).toBeDefined();
      const logs = bot.logLines.join('\n');
      // (Bolt sets its loggers to info, so the Socket Mode client's debug lines, which quote
      // envelopes, are not written; were they, `withoutPayload` would cut them: src/logger.test.ts.)
      for (const secret of [typed, TP3_USERS.bob.password, TP3_USERS.bob.apiKey, ...tp.fake.tokens('bob')])
        expect(logs).not.toContain(secret);
    } finally {
      await bot.stop();
    }
  });
});
