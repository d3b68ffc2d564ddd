// The bot with a key to a Vaultline server in upstream mode over TeamPass 3: the key acts as one
// TeamPass 3 account, which cannot read anyone else's rights, so the bot could not act for people
// (and answered them with different words for ids that exist and ids that do not). It refuses to
// start, and says why. The real server, the TeamPass 3 fake, the real bot start.
import { startTestVault, type TestVault } from '@vaultline/vault-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBot } from './support/bot.ts';
import { type FakeSlack, startFakeSlack } from './support/fake-slack.ts';
import { type SeededTeamPass3, startSeededTeamPass3, TP3_USERS } from './support/teampass3.ts';

describe('the bot in front of a server in upstream mode over TeamPass 3', () => {
  let tp: SeededTeamPass3;
  let vault: TestVault;
  let slack: FakeSlack;
  let key = '';

  beforeAll(async () => {
    [tp, slack] = await Promise.all([startSeededTeamPass3(), startFakeSlack()]);
    vault = await startTestVault({ upstreamUrl: tp.fake.url });
    const admin = vault.server.vault.adminAs({
      principal: { kind: 'admin', keyLabel: '' },
      name: 'test',
      keyLabel: '',
      address: 'test',
    });
    await admin.addUpstreamAccount({
      name: 'tp3',
      url: tp.fake.url,
      login: TP3_USERS.alice.login,
      method: 'password',
      secrets: { password: TP3_USERS.alice.password, apiKey: TP3_USERS.alice.apiKey },
    });
    key = await admin.createKey({ label: 'slack-bot', upstream: { account: 'tp3', folders: 'all' } });
  });
  afterAll(async () => {
    await vault?.close();
    await tp?.fake.close();
    await slack?.close();
  });

  it('refuses to start, saying the key acts as one TeamPass 3 account', async () => {
    await expect(
      startBot({ VAULT_URL: vault.url, VAULT_API_KEY: key, SLACK_API_URL: slack.apiUrl }),
    ).rejects.toThrow(/acts as one TeamPass 3 account .* cannot read other people's rights/);
  });
});
