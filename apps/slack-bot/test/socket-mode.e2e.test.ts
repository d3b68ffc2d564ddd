import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_TOKEN, clickPayload, nextId, SLACK_USERS, startBot, type TestBot } from './support/bot.ts';
import { type FakeSlack, startFakeSlack } from './support/fake-slack.ts';
import { type SeededVault, startSeededVault } from './support/seed.ts';

describe('Socket Mode', () => {
  let slack: FakeSlack;
  let bot: TestBot;
  let seeded: SeededVault;

  beforeAll(async () => {
    [slack, seeded] = await Promise.all([startFakeSlack(), startSeededVault()]);
    bot = await startBot({
      SLACK_MODE: 'socket',
      SLACK_SIGNING_SECRET: '',
      SLACK_API_URL: slack.apiUrl,
      VAULT_URL: seeded.vault.url,
      VAULT_API_KEY: seeded.vault.adminKey,
      REVEAL_SECONDS: '1',
    });
    await slack.connected();
  });
  afterAll(async () => {
    await bot?.stop();
    await slack?.close();
    await seeded?.vault.close();
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
    const answer = await slack.firstResponse(id);
    expect(String(answer?.text)).toContain('not linked to a vault user');
  });

  it('finds and reveals over the socket: same rights, same redaction', async () => {
    const id = nextId();
    const ack = await slack.sendEnvelope('slash_commands', {
      command: '/vault',
      text: 'find github',
      user_id: SLACK_USERS.bob,
      channel_id: 'C1',
      team_id: 'T1',
      response_url: slack.responseUrl(id),
      trigger_id: 't',
    });
    expect(String(ack?.text)).toContain('Searching the vault for “github”');
    const answer = await slack.firstResponse(id);
    expect(JSON.stringify(answer)).toContain('github-ops-token');
    expect(JSON.stringify(answer)).not.toContain('github-deploy');

    const clickId = nextId('c');
    const itemId = String(seeded.items['github-ops-token']);
    await slack.sendEnvelope(
      'interactive',
      clickPayload(SLACK_USERS.bob, 'vault_reveal', itemId, slack.responseUrl(clickId)),
    );
    const [shown, hidden] = await slack.waitFor(
      () => slack.responses(clickId).length >= 2 && slack.responses(clickId),
    );
    const password = seeded.passwords['github-ops-token'] ?? '';
    expect(JSON.stringify(shown)).toContain(password);
    expect(JSON.stringify(hidden)).not.toContain(password);

    const denied = nextId('c');
    await slack.sendEnvelope(
      'interactive',
      clickPayload(
        SLACK_USERS.bob,
        'vault_reveal',
        String(seeded.items['github-deploy']),
        slack.responseUrl(denied),
      ),
    );
    const refusal = await slack.firstResponse(denied);
    expect(String(refusal?.text)).toContain('You cannot read this item');
    expect(bot.logLines.join('\n')).not.toContain(seeded.vault.adminKey);
  });
});
