import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_TOKEN, nextId, SLACK_USERS, startBot, type TestBot } from './support/bot.ts';
import { type FakeSlack, startFakeSlack } from './support/fake-slack.ts';

describe('Socket Mode', () => {
  let slack: FakeSlack;
  let bot: TestBot;

  beforeAll(async () => {
    slack = await startFakeSlack();
    bot = await startBot({
      SLACK_MODE: 'socket',
      SLACK_SIGNING_SECRET: '',
      SLACK_API_URL: slack.apiUrl,
      VAULT_URL: 'http://127.0.0.1:9',
      VAULT_API_KEY: 'socket-mode-vault-key-0123456789',
    });
    await slack.connected();
  });
  afterAll(async () => {
    await bot?.stop();
    await slack?.close();
  });

  it('opens the connection with the app token through apps.connections.open', () => {
    const [open] = slack.apiCalls('apps.connections.open');
    expect(open?.headers.authorization).toBe(`Bearer ${APP_TOKEN}`);
  });

  it('acks a slash command envelope with the help as its payload', async () => {
    const ack = await slack.sendEnvelope('slash_commands', {
      command: '/vault',
      text: 'help',
      user_id: SLACK_USERS.alice,
      channel_id: 'C1',
      team_id: 'T1',
      response_url: slack.responseUrl(nextId()),
      trigger_id: 't',
    });
    expect(ack).toMatchObject({ response_type: 'ephemeral' });
    expect(String(ack?.text)).toContain('/vault get <id or exact label>');
  });

  it('answers an unmapped user through the response_url', async () => {
    const id = nextId();
    const ack = await slack.sendEnvelope('slash_commands', {
      command: '/vault',
      text: 'find db',
      user_id: SLACK_USERS.nobody,
      channel_id: 'C1',
      team_id: 'T1',
      response_url: slack.responseUrl(id),
      trigger_id: 't',
    });
    expect(String(ack?.text)).toContain('Searching the vault');
    const [answer] = await slack.waitFor(() => slack.responses(id).length > 0 && slack.responses(id));
    expect(String(answer?.text)).toContain('not linked to a vault user');
  });
});
