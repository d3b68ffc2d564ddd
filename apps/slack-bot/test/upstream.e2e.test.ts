// The bot in front of a Vaultline server in upstream mode (#32): the server serves the TeamPass 2
// replay fake through a machine key bound to an upstream account and cut to a folder scope. The
// bot works as it does on TeamPass 2 (the key reads each person's rights), and answers nothing
// outside the key's scope. The real Bolt app, the real server, the local fake Slack.
import { type ReplayServer, startReplayServer } from '@vaultline/protocol/testing';
import { startTestVault, type TestVault } from '@vaultline/vault-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextId, SLACK_USERS, slash, startBot, type TestBot } from './support/bot.ts';
import { type FakeSlack, startFakeSlack } from './support/fake-slack.ts';
import { labelsOf, type Message } from './support/messages.ts';

const TP2_KEY = 'tp2-upstream-bot-key-0123456789';
const OPS_PASSWORD = 'pw-ops-outside-scope';

describe('the bot in front of a server in upstream mode over TeamPass 2', () => {
  let teampass: ReplayServer | undefined;
  let vault: TestVault | undefined;
  let slack: FakeSlack | undefined;
  let bot: TestBot | undefined;
  let key = '';
  const answers: Message[] = [];
  const ready = () => {
    if (!teampass || !vault || !slack || !bot) throw new Error('read before beforeAll ran');
    return { teampass, vault, slack, bot };
  };

  /** Runs a slash command and waits for the answer posted to its response_url. */
  async function ask(user: string, text: string) {
    const { bot, slack } = ready();
    const id = nextId();
    const ack = await slash(bot.base, { text, user_id: user, response_url: slack.responseUrl(id) });
    expect(ack.status).toBe(200);
    const answer = (await slack.firstResponse(id, 10_000)) as Message;
    answers.push(answer);
    return answer;
  }

  beforeAll(async () => {
    [teampass, slack] = await Promise.all([startReplayServer({ apiKey: TP2_KEY }), startFakeSlack()]);
    // Seeded: Team (1) with db (10), Staging (2, under Team) with cache (11). Ops (3) is outside
    // the key's scope, though alice may read it on TeamPass.
    teampass.folders.set('3', {
      id: '3',
      title: 'Ops',
      parent_id: '0',
      complexity: '0',
      renewal: '0',
      personal: '0',
    });
    teampass.items.set('13', {
      id: '13',
      label: 'ops-db',
      description: 'ops-db description',
      login: 'root',
      email: 'ops@example.com',
      url: 'https://ops-db.example.com/',
      pw: OPS_PASSWORD,
      folder_id: '3',
      tags: '',
      anyone_can_modify: '0',
    });
    teampass.users.set('alice', { rights: { '1': 'W', '2': 'ND', '3': 'W' } });
    teampass.users.set('bob', { rights: { '2': 'R', '3': 'R' } });
    vault = await startTestVault({ upstreamUrl: teampass.url });
    const admin = vault.server.vault.adminAs({
      principal: { kind: 'admin', keyLabel: '' },
      name: 'test',
      keyLabel: '',
      address: 'test',
    });
    const registered = await admin.addUpstreamAccount({
      name: 'legacy',
      url: teampass.url,
      login: '',
      method: 'api-key',
      secrets: { apiKey: TP2_KEY },
    });
    expect(registered.dialect).toBe('legacy');
    key = await admin.createKey({ label: 'slack-bot', upstream: { account: 'legacy', folders: [1, 2] } });
    bot = await startBot({
      VAULT_URL: vault.url,
      VAULT_API_KEY: key,
      SLACK_API_URL: slack.apiUrl,
      COMMAND_RATE_LIMIT: '1000',
    });
  });

  afterAll(async () => {
    await bot?.stop();
    await vault?.close();
    await teampass?.close();
    await slack?.close();
  });

  it('finds within the key scope and each person’s rights, nothing outside the scope', async () => {
    expect(labelsOf(await ask(SLACK_USERS.alice, 'find db'))).toEqual(['db']);
    expect(labelsOf(await ask(SLACK_USERS.alice, 'find cache'))).toEqual(['cache']);
    const ops = await ask(SLACK_USERS.alice, 'find ops');
    expect(labelsOf(ops)).toEqual([]);
    expect(ops.text).toContain('No item you can read matches “ops”');
    // bob reads Staging and Ops on TeamPass: Staging only through the key.
    expect(labelsOf(await ask(SLACK_USERS.bob, 'find cache'))).toEqual(['cache']);
    const bobDb = await ask(SLACK_USERS.bob, 'find db');
    expect(labelsOf(bobDb)).toEqual([]);
  });

  it('gets by id and label within the scope, and answers outside it as for what does not exist', async () => {
    expect(labelsOf(await ask(SLACK_USERS.alice, 'get 10'))).toEqual(['db']);
    expect(labelsOf(await ask(SLACK_USERS.alice, 'get cache'))).toEqual(['cache']);
    const outside = await ask(SLACK_USERS.alice, 'get 13');
    expect(labelsOf(outside)).toEqual([]);
    expect(outside.text).toContain('No item you can read has the id or label “13”');
    const unknown = await ask(SLACK_USERS.alice, 'get 999');
    expect(unknown.text).toBe(outside.text?.replace('13', '999'));
    expect(labelsOf(await ask(SLACK_USERS.alice, 'get ops-db'))).toEqual([]);
    // bob may not read Team on TeamPass: the key's scope does not widen his rights.
    expect(labelsOf(await ask(SLACK_USERS.bob, 'get 10'))).toEqual([]);
  });

  it('never shows the keys or a password outside the scope in a log line or Slack message', () => {
    const { bot, slack } = ready();
    const text = [
      ...bot.logLines,
      JSON.stringify(answers),
      JSON.stringify(slack.apiCalls('chat.postMessage')),
    ].join('\n');
    expect(answers.length).toBeGreaterThan(10);
    for (const secret of [TP2_KEY, key, OPS_PASSWORD]) expect(text).not.toContain(secret);
  });
});
