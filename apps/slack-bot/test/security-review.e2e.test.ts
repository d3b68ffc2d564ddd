// The points of the security review (#13), each as a test with the real Bolt app, a real vault
// server and the local fake Slack.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createVaultClient } from '@vaultline/protocol';
import { startTestVault } from '@vaultline/vault-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { click, nextId, SLACK_USERS, sign, slash, slashBody, startBot, type TestBot } from './support/bot.ts';
import { type FakeSlack, startFakeSlack } from './support/fake-slack.ts';
import type { Message } from './support/messages.ts';
import { eventually } from './support/poll.ts';
import { startBotProcess } from './support/process.ts';
import { type SeededVault, startSeededVault } from './support/seed.ts';

let seeded: SeededVault;
let slack: FakeSlack;

beforeAll(async () => {
  [seeded, slack] = await Promise.all([startSeededVault(), startFakeSlack()]);
});
afterAll(async () => {
  await slack?.close();
  await seeded?.vault.close();
});

const vaultEnv = () => ({
  VAULT_URL: seeded.vault.url,
  VAULT_API_KEY: seeded.vault.adminKey,
  SLACK_API_URL: slack.apiUrl,
});

async function ask(bot: TestBot, user: string, text: string, ms = 10_000) {
  const id = nextId();
  const ack = await slash(bot.base, { text, user_id: user, response_url: slack.responseUrl(id) });
  const answer = await slack.firstResponse(id, ms);
  return { ack, answer: answer as Message, id };
}

describe('1. email identity', () => {
  let bot: TestBot;
  beforeAll(async () => {
    const directory = join(await mkdtemp(join(tmpdir(), 'directory-')), 'users.csv');
    await writeFile(directory, 'login,email\nalice,alice@example.com\nbob,bob@example.com\n');
    slack.profiles.set('UMEMBER', { email: 'alice@example.com' });
    slack.profiles.set('USTRANGER', { email: 'alice@example.com', team_id: 'T2', is_stranger: true });
    slack.profiles.set('UGUEST2', { email: 'BOB@Example.com', team_id: 'T2', is_restricted: true });
    slack.profiles.set('UGUEST', { email: 'bob@example.com', is_restricted: true });
    slack.profiles.set('UNOFLAG', { email: 'alice@example.com', is_email_confirmed: undefined });
    slack.profiles.set('UOTHER', { email: 'bob@example.com', team_id: 'T3' });
    bot = await startBot({
      ...vaultEnv(),
      IDENTITY_MODE: 'email',
      VAULT_USER_DIRECTORY_FILE: directory,
    });
  });
  afterAll(async () => {
    await bot?.stop();
  });

  it('maps a full member of the installing workspace with a confirmed email', async () => {
    expect((await ask(bot, 'UMEMBER', 'find github')).answer.text).toContain('Items you can read');
  });

  it.each([
    ['a stranger of another team whose email matches', 'USTRANGER', 'Only full members'],
    ['a guest of another team with a case-different email', 'UGUEST2', 'Only full members'],
    ['a guest of this workspace', 'UGUEST', 'Only full members'],
    ['a member of another team', 'UOTHER', 'Only full members'],
    ['a user whose email Slack does not say is confirmed', 'UNOFLAG', 'no confirmed email'],
  ])('refuses %s', async (_name, user, message) => {
    const { answer } = await ask(bot, user, 'find github');
    expect(answer.text).toContain(message);
    expect(JSON.stringify(answer)).not.toContain('github-deploy');
  });

  it('maps guests and other teams only when the configuration allows them', async () => {
    const directory = join(await mkdtemp(join(tmpdir(), 'directory-')), 'users.csv');
    await writeFile(directory, 'login,email\nbob,bob@example.com\n');
    const open = await startBot({
      ...vaultEnv(),
      IDENTITY_MODE: 'email',
      VAULT_USER_DIRECTORY_FILE: directory,
      IDENTITY_TEAM_IDS: 'T1,T3',
      IDENTITY_ALLOW_GUESTS: 'true',
    });
    try {
      expect((await ask(open, 'UGUEST', 'find prod')).answer.text).toContain('Items you can read');
      expect((await ask(open, 'UOTHER', 'find prod')).answer.text).toContain('Items you can read');
      expect((await ask(open, 'UGUEST2', 'find prod')).answer.text).toContain('Only full members');
    } finally {
      await open.stop();
    }
  });
});

describe('2. one person cannot make the bot unusable for everyone', () => {
  it('answers a flooding user alone, in the ack, long before the vault’s budget for the bot runs out', async () => {
    const vault = await startTestVault({ rateLimitPerMinute: 120 });
    const admin = createVaultClient({ baseUrl: vault.url, auth: vault.adminKey });
    await vault.admin.createUser({ login: 'alice' });
    await vault.admin.createUser({ login: 'bob' });
    await vault.admin.createRole({ name: 'all' });
    await vault.admin.assignRole('alice', 'all');
    await vault.admin.assignRole('bob', 'all');
    const { id: folderId } = await admin.folders.create({ title: 'F', complexityLevel: 0, parentId: 0 });
    await vault.admin.grant('all', folderId, 'R');
    const { id } = await admin.items.create({ label: 'shared-db', password: 'Flood-Pw-1', folderId });
    const bot = await startBot({
      VAULT_URL: vault.url,
      VAULT_API_KEY: vault.adminKey,
      SLACK_API_URL: slack.apiUrl,
    });
    try {
      const acks = await Promise.all(
        Array.from({ length: 300 }, () =>
          slash(bot.base, {
            text: `get ${id}`,
            user_id: SLACK_USERS.alice,
            response_url: slack.responseUrl(nextId()),
          }),
        ),
      );
      const slowed = acks.filter((ack) => String(ack.json?.text).includes('faster than the bot allows'));
      expect(slowed.length).toBeGreaterThanOrEqual(290);
      const bob = await ask(bot, SLACK_USERS.bob, `get ${id}`);
      expect(bob.answer.text).not.toContain('busy');
      expect(JSON.stringify(bob.answer)).toContain('shared-db');
      expect((await bot.auditRecords()).filter((r) => r.event === 'command_rate_limited').length).toBe(
        slowed.length,
      );
    } finally {
      await bot.stop();
      await vault.close();
    }
  });
});

describe('3. answers never wait on the audit channel', () => {
  it('answers 30 concurrent commands at once while Slack allows one audit post per second', async () => {
    const bot = await startBot({ ...vaultEnv(), AUDIT_CHANNEL: 'CSLOWAUDIT', COMMAND_RATE_LIMIT: '1000' });
    try {
      const started = Date.now();
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, index) =>
          ask(bot, SLACK_USERS.alice, `find github ${index % 3}`, 20_000),
        ),
      );
      const answeredMs = Date.now() - started;
      expect(answers).toHaveLength(30);
      // One post a second would take 30 s; the answers do not wait for them.
      expect(answeredMs).toBeLessThan(8000);
      // The records reach the channel, batched, retried after Slack's 429s.
      const lines = () =>
        slack
          .apiCalls('chat.postMessage')
          .filter((call) => call.body.channel === 'CSLOWAUDIT')
          .flatMap((call) => String(call.body.text).split('\n'))
          .filter((line) => line.startsWith('find: '));
      await slack.waitFor(() => lines().length >= 30, 30_000);
      expect(lines()).toHaveLength(30);
      expect(
        slack.apiCalls('chat.postMessage').filter((call) => call.body.channel === 'CSLOWAUDIT').length,
      ).toBeLessThan(30);
    } finally {
      await bot.stop();
    }
  }, 60_000);
});

describe('4. audit gaps', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startBot({ ...vaultEnv(), REVEAL_SECONDS: '600' });
  });
  afterAll(async () => {
    await bot?.stop();
  });

  it.each(['500', '404'])(
    'audits a reveal before delivery and its failure after when the response_url answers %s',
    async (status) => {
      const id = nextId(`fail${status}-`);
      const item = seeded.items['staging-db'];
      await click(bot.base, SLACK_USERS.alice, 'vault_reveal', String(item), slack.responseUrl(id));
      const records = await eventually(async () => {
        const all = (await bot.auditRecords()).filter((r) => r.event === 'reveal' && r.itemId === item);
        return all.some((r) => r.outcome === 'delivery_failed') && all;
      });
      expect(records.map((r) => r.outcome)).toEqual(['attempt', 'delivery_failed']);
      expect(records[0]).toMatchObject({ login: 'alice', label: 'staging-db', slackUser: SLACK_USERS.alice });
      const password = seeded.passwords['staging-db'] ?? '';
      expect(JSON.stringify(await bot.auditRecords())).not.toContain(password);
      // Its redaction is dropped with it: nothing was shown.
    },
  );

  it('audits a failed find with its error code', async () => {
    const broken = await startBot({ ...vaultEnv(), VAULT_API_KEY: 'wrong-key-aaaa-bbbb-cccc-dddd' });
    try {
      await ask(broken, SLACK_USERS.alice, 'find github');
      const records = await eventually(async () => {
        const found = (await broken.auditRecords()).filter((r) => r.event === 'find');
        return found.length > 0 && found;
      });
      expect(records[0]).toMatchObject({
        login: 'alice',
        outcome: 'error:unauthorized',
        slackUser: SLACK_USERS.alice,
      });
    } finally {
      await broken.stop();
    }
  });
});

describe('5. vault error text in logs', () => {
  it('logs only the cut, masked err message of a vault error answer, never a pw value', async () => {
    const leaky = createServer((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          err: 'Refused {"label":"x","pw":"Leaky-Secret-123","login":"y"} pw=Other-Secret-456',
        }),
      );
    });
    await new Promise<void>((resolve) => leaky.listen(0, '127.0.0.1', resolve));
    const bot = await startBot({
      VAULT_URL: `http://127.0.0.1:${(leaky.address() as AddressInfo).port}`,
      VAULT_API_KEY: 'leaky-vault-key-0123456789',
      SLACK_API_URL: slack.apiUrl,
    });
    try {
      const { answer } = await ask(bot, SLACK_USERS.alice, 'find github');
      expect(JSON.stringify(answer)).not.toContain('Leaky-Secret-123');
      const logs = bot.logLines.join('\n');
      expect(logs).toContain('request failed');
      expect(logs).toContain('"withheld":true');
      expect(logs).not.toContain('Leaky-Secret-123');
      expect(logs).not.toContain('Other-Secret-456');
      expect(JSON.stringify(await bot.auditRecords())).not.toContain('Leaky-Secret-123');
    } finally {
      await bot.stop();
      leaky.closeAllConnections();
      await new Promise<void>((resolve) => leaky.close(() => resolve()));
    }
  });
});

describe('6. request checks', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startBot({ ...vaultEnv(), SLACK_TEAM_IDS: 'T1,T2', SLACK_APP_IDS: 'A1' });
  });
  afterAll(async () => {
    await bot?.stop();
  });

  it('refuses a correctly signed request from 10 minutes in the future', async () => {
    const fields = { text: 'help', user_id: SLACK_USERS.alice, response_url: slack.responseUrl(nextId()) };
    const future = Math.floor(Date.now() / 1000) + 10 * 60;
    expect((await slash(bot.base, fields, sign(slashBody(fields), future))).status).toBe(401);
  });

  it('accepts a signed request once: the very same request again is refused', async () => {
    const id = nextId();
    const fields = { text: 'find github', user_id: SLACK_USERS.alice, response_url: slack.responseUrl(id) };
    const headers = sign(slashBody(fields));
    expect((await slash(bot.base, fields, headers)).status).toBe(200);
    expect((await slash(bot.base, fields, headers)).status).toBe(401);
    await slack.firstResponse(id);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(slack.responses(id)).toHaveLength(1);
  });

  it.each([
    [1024 * 1024, 413],
    [200 * 1024, 401],
  ])('answers an unsigned body of %i bytes with %i before reading it', async (size, expected) => {
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(`${bot.base}/slack/events`, {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(size) },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', (error) =>
        error.message.includes('EPIPE') || error.message.includes('ECONNRESET') ? undefined : reject(error),
      );
      // Only the first kilobyte is ever sent: the answer cannot wait for the rest.
      req.write('x'.repeat(1024));
    });
    expect(status).toBe(expected);
  });

  it('posts only to Slack’s hooks host: a response_url elsewhere is refused', async () => {
    const elsewhere = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    let posted = 0;
    elsewhere.on('request', () => {
      posted += 1;
    });
    try {
      const url = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/hook`;
      const res = await slash(bot.base, {
        text: 'find github',
        user_id: SLACK_USERS.alice,
        response_url: url,
      });
      expect(res.status).toBe(400);
      const clicked = await click(
        bot.base,
        SLACK_USERS.alice,
        'vault_reveal',
        String(seeded.items['staging-db']),
        url,
      );
      expect(clicked.status).toBe(400);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(posted).toBe(0);
    } finally {
      await new Promise<void>((resolve) => elsewhere.close(() => resolve()));
    }
  });

  it.each([
    ['a team', { team_id: 'T9' }],
    ['an app', { api_app_id: 'A9' }],
  ])('refuses a signed request from %s not on the allow-list', async (_name, extra) => {
    const id = nextId();
    const res = await slash(bot.base, {
      text: 'find github',
      user_id: SLACK_USERS.alice,
      response_url: slack.responseUrl(id),
      ...extra,
    });
    expect(res.status).toBe(403);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(slack.responses(id)).toEqual([]);
  });
});

describe('7. freshness of rights', () => {
  it('re-checks show-login at the click, like reveal, and caches rights 5 s by default', async () => {
    const bot = await startBot(vaultEnv());
    try {
      expect(bot.bot.deps.config.accessCacheSeconds).toBe(5);
      const { answer } = await ask(bot, SLACK_USERS.bob, 'find office');
      expect(JSON.stringify(answer)).toContain('office-wifi');
      await seeded.vault.admin.revoke('ops', seeded.folders.shared);
      try {
        const id = nextId('c');
        await click(
          bot.base,
          SLACK_USERS.bob,
          'vault_show_login',
          String(seeded.items['office-wifi']),
          slack.responseUrl(id),
        );
        const shown = await slack.firstResponse(id);
        expect(String(shown?.text)).toContain('You cannot read this item');
        expect(JSON.stringify(shown)).not.toContain('"office"');
      } finally {
        await seeded.vault.admin.grant('ops', seeded.folders.shared, 'R');
      }
    } finally {
      await bot.stop();
    }
  });
});

describe('8. state across restarts', () => {
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  });

  async function startProcess(dataDir: string, mapFile: string, port: number): Promise<ChildProcess> {
    const child = await startBotProcess(
      {
        SLACK_API_URL: slack.apiUrl,
        SLACK_RESPONSE_URL_ORIGINS: new URL(slack.apiUrl).origin,
        VAULT_URL: seeded.vault.url,
        VAULT_API_KEY: seeded.vault.adminKey,
        IDENTITY_MAP_FILE: mapFile,
        BOT_DATA_DIR: dataDir,
        REVEAL_SECONDS: '3',
        REVEAL_RATE_LIMIT: '1',
        REVEAL_RATE_WINDOW_SECONDS: '600',
      },
      port,
    );
    children.push(child);
    return child;
  }

  it('hides a password revealed before a SIGKILL once a new process starts, keeps the reveal limit, and still refuses a replay', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'slack-bot-restart-'));
    const mapFile = join(dir, 'map.csv');
    await writeFile(mapFile, `${SLACK_USERS.alice},alice\n`);
    const port = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const base = `http://127.0.0.1:${port}`;
    const first = await startProcess(join(dir, 'store'), mapFile, port);
    // A signed request answered before the kill: its signature must still be refused after it.
    const helpFields = {
      text: 'help',
      user_id: SLACK_USERS.alice,
      response_url: slack.responseUrl(nextId()),
    };
    const helpHeaders = sign(slashBody(helpFields));
    expect((await slash(base, helpFields, helpHeaders)).status).toBe(200);
    const id = nextId('c');
    await click(
      base,
      SLACK_USERS.alice,
      'vault_reveal',
      String(seeded.items['staging-db']),
      slack.responseUrl(id),
    );
    await slack.waitFor(() => slack.responses(id).length === 1, 10_000);
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    expect(slack.responses(id)).toHaveLength(1);
    await startProcess(join(dir, 'store'), mapFile, port);
    const [, hidden] = await slack.waitFor(
      () => slack.responses(id).length >= 2 && slack.responses(id),
      15_000,
    );
    expect(String(hidden?.text)).toContain('hidden again');
    expect((await slash(base, helpFields, helpHeaders)).status).toBe(401);
    expect(JSON.stringify(hidden)).not.toContain(seeded.passwords['staging-db']);
    const again = nextId('c');
    await click(
      base,
      SLACK_USERS.alice,
      'vault_reveal',
      String(seeded.items['staging-db']),
      slack.responseUrl(again),
    );
    const limited = await slack.firstResponse(again, 10_000);
    expect(String(limited?.text)).toMatch(/Please wait \d+ s/);
  }, 60_000);
});

describe('9. labels and query length', () => {
  it('shows labels with formatting characters and bidi controls as plain, inert text', async () => {
    const label = 'fmt *bold* _it_ ~st~ `code` \u202Eevil\u200Bx';
    const { id } = await seeded.admin.items.create({
      label,
      password: 'Fmt-Pw-1',
      folderId: seeded.folders.dev,
    });
    const bot = await startBot(vaultEnv());
    try {
      const { answer } = await ask(bot, SLACK_USERS.alice, 'find fmt');
      const section = answer.blocks?.find((block) => block.text?.text.includes(`#${id}`));
      expect(section?.text?.type).toBe('plain_text');
      expect(section?.text?.text).toContain('*bold* _it_ ~st~ `code`');
      expect(JSON.stringify(answer)).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200B-\u200F]/);
      expect(section?.text?.text).toContain('\uFFFDevil\uFFFDx');
      for (const block of answer.blocks ?? [])
        if (block.text?.type === 'mrkdwn') expect(block.text.text).not.toContain('*bold*');
    } finally {
      await bot.stop();
    }
  });

  it('refuses a query longer than the vault’s search limit with a clear message', async () => {
    const bot = await startBot(vaultEnv());
    try {
      const res = await slash(bot.base, {
        text: `find ${'a'.repeat(150)}`,
        user_id: SLACK_USERS.alice,
        response_url: slack.responseUrl(nextId()),
      });
      expect(String(res.json?.text)).toContain('at most 100 characters');
    } finally {
      await bot.stop();
    }
  });
});
