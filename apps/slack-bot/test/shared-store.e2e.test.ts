// Two bot processes sharing one PostgreSQL store (BOT_DATABASE_URL): a replayed request, a user's
// limit and an access decision count once across both.

import { type PostgresCluster, startPostgresCluster } from '@vaultline/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { click, nextId, SLACK_USERS, sign, slash, slashBody, startBot, type TestBot } from './support/bot.ts';
import { type FakeSlack, type RecordedCall, startFakeSlack } from './support/fake-slack.ts';
import { type SeededVault, startSeededVault } from './support/seed.ts';

let seeded: SeededVault;
let slack: FakeSlack;
let cluster: PostgresCluster;
let one: TestBot;
let two: TestBot;

beforeAll(async () => {
  [seeded, slack, cluster] = await Promise.all([
    startSeededVault(),
    startFakeSlack(),
    startPostgresCluster(),
  ]);
  slack.channelIntervalMs = 0;
  const url = await cluster.createDatabase();
  const env = {
    VAULT_URL: seeded.vault.url,
    VAULT_API_KEY: seeded.vault.adminKey,
    SLACK_API_URL: slack.apiUrl,
    BOT_DATABASE_URL: url,
    APPROVERS: SLACK_USERS.bob,
    COMMAND_RATE_LIMIT: '5',
    COMMAND_RATE_WINDOW_SECONDS: '600',
  };
  // Both migrate the same database at once: the advisory lock orders them.
  const mapping = {
    [SLACK_USERS.alice]: 'alice',
    [SLACK_USERS.bob]: 'bob',
    [SLACK_USERS.carol]: 'carol',
    UREQUESTER: 'alice',
  };
  [one, two] = await Promise.all([startBot(env, mapping), startBot(env, mapping)]);
});
afterAll(async () => {
  await one?.stop();
  await two?.stop();
  await cluster?.stop();
  await slack?.close();
  await seeded?.vault.close();
});

describe('two bot processes on one PostgreSQL store', () => {
  it('refuses at the second instance a signed request the first one accepted', async () => {
    const fields = { text: 'help', user_id: SLACK_USERS.carol, response_url: slack.responseUrl(nextId()) };
    const headers = sign(slashBody(fields));
    expect((await slash(one.base, fields, headers)).status).toBe(200);
    expect((await slash(two.base, fields, headers)).status).toBe(401);
  });

  it('decides a request once when its approver clicks Approve at both instances at the same time', async () => {
    const before = slack.apiCalls('chat.postMessage').length;
    const id = nextId();
    await slash(one.base, {
      text: `request ${seeded.items['prod-db']}`,
      user_id: SLACK_USERS.alice,
      response_url: slack.responseUrl(id),
    });
    const posts = () =>
      slack
        .apiCalls('chat.postMessage')
        .slice(before)
        .filter((call: RecordedCall) => String(call.body.text).startsWith('Access request'));
    const [post] = await slack.waitFor(() => posts().length > 0 && posts(), 15_000);
    const blocks = JSON.parse(String(post?.body.blocks)) as { elements?: { value?: string }[] }[];
    const requestId = blocks.flatMap((block) => block.elements ?? [])[0]?.value ?? '';
    const [a, b] = [nextId('c'), nextId('c')];
    await Promise.all([
      click(one.base, SLACK_USERS.bob, 'vault_request_approve', requestId, slack.responseUrl(a)),
      click(two.base, SLACK_USERS.bob, 'vault_request_approve', requestId, slack.responseUrl(b)),
    ]);
    const decided = async () =>
      [...(await one.auditRecords()), ...(await two.auditRecords())].filter(
        (record) => record.requestId === requestId && record.decidedBy === SLACK_USERS.bob,
      );
    const started = Date.now();
    while ((await decided()).length < 2 && Date.now() - started < 10_000)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const outcomes = (await decided()).map((record) => `${record.event}:${record.outcome}`).sort();
    expect(outcomes).toEqual(['access_approved:approved', 'access_decision_refused:not_pending']);
  });

  it('keeps one pending request when the same request reaches both instances at once', async () => {
    const before = slack.apiCalls('chat.postMessage').length;
    // Four: the command limit of this file is 5 per user.
    const ids = Array.from({ length: 4 }, () => nextId());
    await Promise.all(
      ids.map((id, index) =>
        slash(index % 2 === 0 ? one.base : two.base, {
          text: `request ${seeded.items['github-ops-token']} both`,
          user_id: 'UREQUESTER',
          response_url: slack.responseUrl(id),
        }),
      ),
    );
    const answers = await slack.waitFor(() => {
      const got = ids.map((id) => slack.responses(id)[0]).filter((answer) => answer !== undefined);
      return got.length === ids.length && got;
    }, 15_000);
    const texts = answers.map((answer) => String(answer.text));
    expect(texts.filter((text) => text.includes('went to the approvers'))).toHaveLength(1);
    expect(texts.filter((text) => text.includes('already pending'))).toHaveLength(3);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const posts = slack
      .apiCalls('chat.postMessage')
      .slice(before)
      .filter((call: RecordedCall) => String(call.body.text).startsWith('Access request'));
    expect(posts).toHaveLength(1);
  });

  it('counts a user’s commands across both instances, shared through the store within a batch', async () => {
    const send = async (bot: TestBot, user: string) =>
      String(
        (await slash(bot.base, { text: 'help', user_id: user, response_url: slack.responseUrl(nextId()) }))
          .json?.text,
      );
    const limited = (texts: string[]) => texts.filter((text) => text.includes('faster than the bot allows'));
    // Each instance decides in memory and adds its counts to the store every 100 ms; a second is
    // far more than one batch.
    const batch = () => new Promise((resolve) => setTimeout(resolve, 1000));
    // The limit (5) at the first instance, then the second refuses a user it has never seen.
    const first: string[] = [];
    for (let i = 0; i < 5; i += 1) first.push(await send(one, 'ULIMITED'));
    expect(limited(first)).toHaveLength(0);
    await batch();
    expect(
      limited([await send(two, 'ULIMITED'), await send(one, 'ULIMITED'), await send(two, 'ULIMITED')]),
    ).toHaveLength(3);
    // And the other way: three at the second instance leave two at the first.
    const second: string[] = [];
    for (let i = 0; i < 3; i += 1) second.push(await send(two, 'ULIMITED2'));
    await batch();
    for (let i = 0; i < 3; i += 1) second.push(await send(one, 'ULIMITED2'));
    expect(second.map((text) => limited([text]).length)).toEqual([0, 0, 0, 0, 0, 1]);
  });
});
