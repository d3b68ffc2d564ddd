import { request } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BOT_TOKEN,
  nextId,
  SIGNING_SECRET,
  SLACK_USERS,
  sign,
  slash,
  slashBody,
  startBot,
  type TestBot,
} from './support/bot.ts';
import { type FakeSlack, startFakeSlack } from './support/fake-slack.ts';

const VAULT_KEY = 'vault-key-that-must-never-leak-0123456789';

/** A port where nothing listens: the vault is down. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('a vault that never answers', () => {
  it('does not delay the ack, and later says the vault did not answer in time', async () => {
    const sockets = new Set<Socket>();
    const hanging = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const slack = await startFakeSlack();
    const port = (hanging.address() as { port: number }).port;
    const bot = await startBot({
      VAULT_URL: `http://127.0.0.1:${port}`,
      VAULT_API_KEY: VAULT_KEY,
      VAULT_TIMEOUT_MS: '300',
      SLACK_API_URL: slack.apiUrl,
    });
    try {
      const id = nextId();
      const res = await slash(bot.base, {
        text: 'find db',
        user_id: SLACK_USERS.alice,
        response_url: slack.responseUrl(id),
      });
      expect(res.status).toBe(200);
      expect(res.ms).toBeLessThan(1000);
      expect(slack.responses(id)).toEqual([]);
      const answer = await slack.firstResponse(id, 10_000);
      expect(String(answer?.text)).toContain('did not answer in time');
      expect(JSON.stringify(answer)).not.toContain(VAULT_KEY);
    } finally {
      await bot.stop();
      await slack.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => hanging.close(() => resolve()));
    }
  });
});

describe('the HTTP receiver', () => {
  let slack: FakeSlack;
  let bot: TestBot;

  beforeAll(async () => {
    slack = await startFakeSlack();
    bot = await startBot({
      VAULT_URL: `http://127.0.0.1:${await closedPort()}`,
      VAULT_API_KEY: VAULT_KEY,
      SLACK_API_URL: slack.apiUrl,
    });
  });
  afterAll(async () => {
    await bot?.stop();
    await slack?.close();
  });

  it('acks a correctly signed /vault help with the help text as an ephemeral ack body', async () => {
    const res = await slash(bot.base, {
      text: 'help',
      user_id: SLACK_USERS.alice,
      response_url: slack.responseUrl(nextId()),
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ response_type: 'ephemeral' });
    expect(String(res.json?.text)).toContain('/vault find <text>');
  });

  it('rejects a bad signature with 401 and runs nothing', async () => {
    const id = nextId();
    const body = slashBody({
      text: 'find db',
      user_id: SLACK_USERS.alice,
      response_url: slack.responseUrl(id),
    });
    const headers = sign(body, Math.floor(Date.now() / 1000), 'not-the-secret');
    const res = await slash(
      bot.base,
      { text: 'find db', user_id: SLACK_USERS.alice, response_url: slack.responseUrl(id) },
      headers,
    );
    expect(res.status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(slack.responses(id)).toEqual([]);
  });

  it('rejects a correctly signed request older than five minutes with 401', async () => {
    const id = nextId();
    const fields = { text: 'help', user_id: SLACK_USERS.alice, response_url: slack.responseUrl(id) };
    const stale = Math.floor(Date.now() / 1000) - 5 * 60 - 5;
    const res = await slash(bot.base, fields, sign(slashBody(fields), stale));
    expect(res.status).toBe(401);
  });

  it('rejects a request without signature headers with 401', async () => {
    const res = await fetch(`${bot.base}/slack/events`, {
      method: 'POST',
      body: 'command=%2Fvault&text=help',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(401);
  });

  it('answers an unknown subcommand with the help, showing back only a short word', async () => {
    const res = await slash(bot.base, {
      text: '<!channel>&x',
      user_id: SLACK_USERS.alice,
      response_url: slack.responseUrl(nextId()),
    });
    expect(res.status).toBe(200);
    const text = String(res.json?.text);
    expect(text).toContain('Unknown subcommand.');
    expect(text).not.toContain('channel');
  });

  it.each([
    ['empty', 'find', 'Usage: /vault find &lt;text&gt;'],
    ['oversized', `find ${'a'.repeat(101)}`, 'at most 100 characters'],
    ['control characters', 'find a\u0007b', 'control characters'],
  ])('refuses a %s query in the ack, before any vault call', async (_name, text, expected) => {
    const id = nextId();
    const res = await slash(bot.base, {
      text,
      user_id: SLACK_USERS.alice,
      response_url: slack.responseUrl(id),
    });
    expect(res.status).toBe(200);
    expect(String(res.json?.text)).toContain(expected);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(slack.responses(id)).toEqual([]);
  });

  it('escapes a hostile query echoed in the ack: no broadcast, no injected link, &<> escaped', async () => {
    const res = await slash(bot.base, {
      text: 'find <!here> @channel <https://evil.example|click> & more',
      user_id: SLACK_USERS.nobody,
      response_url: slack.responseUrl(nextId()),
    });
    const text = String(res.json?.text);
    expect(text).not.toMatch(/<!here>|<https:|@channel/);
    expect(text).toContain('&lt;!here&gt;');
    expect(text).toContain('@\u2060channel');
    expect(text).toContain('&amp; more');
  });

  it('tells an unmapped Slack user so, shows nothing, and audits the attempt', async () => {
    const id = nextId();
    const res = await slash(bot.base, {
      text: 'find db',
      user_id: SLACK_USERS.nobody,
      response_url: slack.responseUrl(id),
    });
    expect(res.status).toBe(200);
    const answer = await slack.firstResponse(id);
    expect(answer).toMatchObject({ response_type: 'ephemeral' });
    expect(String(answer?.text)).toContain('not linked to a vault user');
    expect(JSON.stringify(answer)).not.toContain('Reveal');
    const audit = await bot.auditRecords();
    expect(audit.at(-1)).toMatchObject({ event: 'find', slackUser: SLACK_USERS.nobody, outcome: 'unmapped' });
  });

  it('says the vault cannot be reached when it is down, without a stack or the key', async () => {
    const id = nextId();
    await slash(bot.base, {
      text: 'find db',
      user_id: SLACK_USERS.alice,
      response_url: slack.responseUrl(id),
    });
    const answer = await slack.firstResponse(id, 10_000);
    expect(String(answer?.text)).toMatch(/cannot be reached|did not answer/);
    const all = JSON.stringify(slack.calls) + bot.logLines.join('\n');
    expect(all).not.toContain(VAULT_KEY);
    expect(all).not.toContain(SIGNING_SECRET);
    expect(JSON.stringify(answer)).not.toMatch(/at .*\.(ts|js):\d+/);
    expect(bot.logLines.some((line) => line.includes('"code":"network"'))).toBe(true);
  });

  it('refuses an oversized signed request with 413 and keeps serving', async () => {
    const body = slashBody({
      text: `find ${'x'.repeat(2 * 1024 * 1024)}`,
      user_id: SLACK_USERS.alice,
      response_url: slack.responseUrl(nextId()),
    });
    // Its own connection: the server answers before reading the whole body and then drops it.
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(`${bot.base}/slack/events`, {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...sign(body) },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(status).toBe(413);
    expect((await fetch(`${bot.base}/healthz`)).status).toBe(200);
  });

  it.each([
    ['a payload that is not JSON', 'payload=%7Bnot-json'],
    ['an empty body', ''],
    [
      'a payload of the wrong shape',
      `payload=${encodeURIComponent(JSON.stringify({ type: 'block_actions', actions: 'x' }))}`,
    ],
  ])('survives %s, signed, without leaking anything', async (_name, body) => {
    const res = await fetch(`${bot.base}/slack/events`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...sign(body) },
    });
    expect(res.status).toBeGreaterThanOrEqual(200);
    expect(res.status).toBeLessThan(600);
    expect(await res.text()).not.toMatch(/at .*\.(ts|js):\d+|vault-key/);
    expect((await fetch(`${bot.base}/healthz`)).status).toBe(200);
  });

  it('answers the health probe', async () => {
    const res = await fetch(`${bot.base}/healthz`);
    expect(await res.text()).toBe('ok');
  });

  it('sends the bot token only to the Web API, never to a response_url or a log', () => {
    const posts = slack.calls.filter((call) => call.path.startsWith('/response/'));
    expect(posts.length).toBeGreaterThan(0);
    for (const call of posts) expect(JSON.stringify(call)).not.toContain(BOT_TOKEN);
    expect(bot.logLines.join('\n')).not.toContain(BOT_TOKEN);
  });
});
