// #12: request access with approvers, the App Home and the "Find a credential" shortcut, with the
// real Bolt app, signed requests, a real vault server and the local fake Slack.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  click,
  nextId,
  postEvent,
  postPayload,
  SLACK_USERS,
  slash,
  startBot,
  type TestBot,
} from './support/bot.ts';
import { type FakeSlack, type RecordedCall, startFakeSlack } from './support/fake-slack.ts';
import { elementsOf, type Message, postsTo, requestPosts } from './support/messages.ts';
import { eventually } from './support/poll.ts';
import { type SeededVault, startSeededVault } from './support/seed.ts';

let seeded: SeededVault;
let slack: FakeSlack;

beforeAll(async () => {
  [seeded, slack] = await Promise.all([startSeededVault(), startFakeSlack()]);
  slack.channelIntervalMs = 0;
  slack.groups.set('SDEVLEADS', [SLACK_USERS.alice]);
});
afterAll(async () => {
  await slack?.close();
  await seeded?.vault.close();
});

const env = (extra: Record<string, string> = {}) => ({
  VAULT_URL: seeded.vault.url,
  VAULT_API_KEY: seeded.vault.adminKey,
  SLACK_API_URL: slack.apiUrl,
  APPROVERS: SLACK_USERS.bob,
  APPROVERS_BY_FOLDER: `${seeded.folders.ops}=${SLACK_USERS.bob},${SLACK_USERS.carol},UNOBODY; ${seeded.folders.dev}=SDEVLEADS`,
  REVEAL_SECONDS: '1',
  COMMAND_RATE_LIMIT: '1000',
  ...extra,
});

async function ask(bot: TestBot, user: string, text: string) {
  const id = nextId();
  const ack = await slash(bot.base, { text, user_id: user, response_url: slack.responseUrl(id) });
  const answer = await slack.firstResponse(id, 15_000);
  return { ack, answer: answer as Message };
}

async function press(bot: TestBot, user: string, actionId: string, value: string) {
  const id = nextId('c');
  await click(bot.base, user, actionId, value, slack.responseUrl(id));
  const answer = await slack.firstResponse(id, 15_000);
  return answer as Message;
}

/** Bob approves the request on the bot at `base`; resolves with the DM that tells Alice. */
async function approveAndTellAlice(base: string, requestId: string): Promise<RecordedCall | undefined> {
  const dmBefore = slack.apiCalls('chat.postMessage').length;
  await click(base, SLACK_USERS.bob, 'vault_request_approve', requestId, slack.responseUrl(nextId('c')));
  const [told] = await slack.waitFor(
    () =>
      postsTo(slack, SLACK_USERS.alice, dmBefore).length > 0 && postsTo(slack, SLACK_USERS.alice, dmBefore),
  );
  return told;
}

describe('request → approve → reveal → expire', () => {
  let bot: TestBot;
  beforeAll(async () => {
    bot = await startBot(env({ GRANT_SECONDS: '3' }));
  });
  afterAll(async () => {
    await bot?.stop();
  });

  it('runs the whole flow, refusing every click that does not count, and audits each step without a value', async () => {
    const item = seeded.items['prod-db'] ?? 0;
    const password = seeded.passwords['prod-db'] ?? '';
    const before = slack.apiCalls('chat.postMessage').length;
    const { ack, answer } = await ask(bot, SLACK_USERS.alice, `request ${item} fixing the deploy`);
    expect(String(ack.json?.text)).toContain('Asking the approvers');
    expect(answer.text).toContain('went to the approvers');
    expect(JSON.stringify(answer)).not.toContain('prod-db');
    // The folder's approvers who may read the item get it by DM, with the item, the reason and the
    // buttons: bob; not carol (she reads nothing) nor UNOBODY (no vault user).
    const posts = await slack.waitFor(
      () => requestPosts(slack, before).length === 1 && requestPosts(slack, before),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(requestPosts(slack, before).map((call) => call.body.channel)).toEqual([SLACK_USERS.bob]);
    expect(String(posts[0]?.body.text)).toContain('prod-db');
    expect(String(posts[0]?.body.text)).toContain('fixing the deploy');
    const approve = elementsOf(posts[0] as RecordedCall).find(
      (button) => button.action_id === 'vault_request_approve',
    );
    const requestId = approve?.value ?? '';
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);

    // Refused: the requester, an approver who cannot read the item, someone not listed, a forged id.
    expect((await press(bot, SLACK_USERS.alice, 'vault_request_approve', requestId)).text).toContain(
      'Nobody decides their own request',
    );
    expect((await press(bot, SLACK_USERS.carol, 'vault_request_approve', requestId)).text).toContain(
      'cannot read this item yourself',
    );
    expect((await press(bot, 'UDAVE', 'vault_request_approve', requestId)).text).toContain('not an approver');
    expect(
      (await press(bot, SLACK_USERS.bob, 'vault_request_approve', '00000000-0000-0000-0000-000000000000'))
        .text,
    ).toContain('does not exist');
    // Before approval the requester still cannot reveal it.
    expect((await press(bot, SLACK_USERS.alice, 'vault_reveal', String(item))).text).toContain(
      'You cannot read',
    );

    const updatesBefore = slack.apiCalls('chat.update').length;
    const told = await approveAndTellAlice(bot.base, requestId);
    expect(String(told?.body.text)).toContain(`approved by ${SLACK_USERS.bob}`);
    await slack.waitFor(() => slack.apiCalls('chat.update').length >= updatesBefore + 1);
    expect(String(slack.apiCalls('chat.update').at(-1)?.body.text)).toContain(
      `Approved by ${SLACK_USERS.bob}`,
    );
    // A decision is final.
    expect((await press(bot, SLACK_USERS.bob, 'vault_request_deny', requestId)).text).toContain(
      'already decided',
    );

    // One reveal, enforced by the bot.
    const shown = await press(bot, SLACK_USERS.alice, 'vault_reveal', String(item));
    expect(JSON.stringify(shown)).toContain(password);
    expect(shown.text).not.toContain(password);
    expect((await press(bot, SLACK_USERS.alice, 'vault_reveal', String(item))).text).toContain(
      'You cannot read',
    );

    // The grant ends and says how.
    const closed = await eventually(async () =>
      (await bot.auditRecords()).find(
        (record) => record.event === 'access_grant_expired' && record.requestId === requestId,
      ),
    );
    expect(closed.outcome).toBe('used');

    const audit = await bot.auditRecords();
    const steps = audit
      .filter((record) => record.requestId === requestId)
      .map((record) => `${record.event}:${record.outcome}`);
    expect(steps).toEqual(
      expect.arrayContaining([
        'access_requested:pending',
        'access_decision_refused:self_approval',
        'access_decision_refused:approver_cannot_read',
        'access_decision_refused:not_approver',
        'access_approved:approved',
        'access_decision_refused:not_pending',
        'reveal:attempt',
        'reveal:shown',
        'access_grant_expired:used',
      ]),
    );
    expect(audit.find((record) => record.event === 'access_approved')).toMatchObject({
      slackUser: SLACK_USERS.alice,
      decidedBy: SLACK_USERS.bob,
      itemId: item,
    });
    // No value anywhere but the one reveal.
    expect(JSON.stringify(audit)).not.toContain(password);
    expect(bot.logLines.join('\n')).not.toContain(password);
    for (const call of slack.calls)
      if (call.raw.includes(password)) expect(String(call.body.text)).toMatch(/^Password of/);
  });

  it('offers Request access on a refused get, saying nothing about whether the item exists', async () => {
    const hidden = await ask(bot, SLACK_USERS.alice, 'get prod-db');
    const missing = await ask(bot, SLACK_USERS.alice, 'get no-such-item-xyz');
    const shape = (message: Message, typed: string) => JSON.stringify(message).replaceAll(typed, 'TYPED');
    expect(shape(hidden.answer, 'prod-db')).toBe(shape(missing.answer, 'no-such-item-xyz'));
    const button = (hidden.answer.blocks ?? []).flatMap((block) => block.elements ?? [])[0];
    expect(button).toMatchObject({ action_id: 'vault_request_access', value: 'prod-db' });
    const before = slack.apiCalls('chat.postMessage').length;
    const answer = await press(bot, SLACK_USERS.alice, 'vault_request_access', 'prod-db');
    expect(answer.text).toContain('went to the approvers');
    // The label resolves among what the approvers can read: the ops folder's approver who may read
    // it gets it.
    const posts = await slack.waitFor(
      () => requestPosts(slack, before).length === 1 && requestPosts(slack, before),
    );
    expect(String(posts[0]?.body.text)).toContain(`(#${seeded.items['prod-db']})`);
  });

  it('denies, and tells both sides', async () => {
    const before = slack.apiCalls('chat.postMessage').length;
    await ask(bot, SLACK_USERS.bob, `request ${seeded.items['staging-db']}`);
    // Dev's approvers are a user group: alice.
    const [post] = await slack.waitFor(
      () => requestPosts(slack, before).length === 1 && requestPosts(slack, before),
    );
    expect(post?.body.channel).toBe(SLACK_USERS.alice);
    const deny = elementsOf(post as RecordedCall).find((button) => button.action_id === 'vault_request_deny');
    await click(
      bot.base,
      SLACK_USERS.alice,
      'vault_request_deny',
      deny?.value ?? '',
      slack.responseUrl(nextId('c')),
    );
    const [told] = await slack.waitFor(
      () => postsTo(slack, SLACK_USERS.bob, before).length > 0 && postsTo(slack, SLACK_USERS.bob, before),
    );
    expect(String(told?.body.text)).toContain(`denied by ${SLACK_USERS.alice}`);
    await slack.waitFor(() =>
      slack
        .apiCalls('chat.update')
        .some((call) => String(call.body.text).startsWith(`Denied by ${SLACK_USERS.alice}`)),
    );
  });

  it('shows the App Home: the linked login, pending requests, recent reveals and a search box', async () => {
    await ask(bot, SLACK_USERS.alice, `request ${seeded.items['github-ops-token']} need it`);
    const before = slack.apiCalls('views.publish').length;
    expect(
      (
        await postEvent(bot.base, {
          type: 'app_home_opened',
          user: SLACK_USERS.alice,
          tab: 'home',
          channel: 'D1',
        })
      ).status,
    ).toBe(200);
    const [publish] = await slack.waitFor(
      () => slack.apiCalls('views.publish').length > before && slack.apiCalls('views.publish').slice(before),
    );
    expect(publish?.body.user_id).toBe(SLACK_USERS.alice);
    const view = String(publish?.body.view);
    expect(view).toContain('Linked to the vault user alice');
    expect(view).toContain(`“${seeded.items['github-ops-token']}”`);
    expect(view).toContain('prod-db');
    expect(view).toContain('vault_home_search');
    for (const password of Object.values(seeded.passwords)) expect(view).not.toContain(password);
  });

  it('opens a search modal from the “Find a credential” shortcut, with results like /vault find', async () => {
    const opens = slack.apiCalls('views.open').length;
    await postPayload(bot.base, {
      type: 'shortcut',
      callback_id: 'vault_find_shortcut',
      trigger_id: 'trigger-shortcut',
      user: { id: SLACK_USERS.alice, team_id: 'T1' },
      team: { id: 'T1' },
      api_app_id: 'A1',
      token: 'legacy-verification-token',
    });
    const [open] = await slack.waitFor(
      () => slack.apiCalls('views.open').length > opens && slack.apiCalls('views.open').slice(opens),
    );
    expect(String(open?.body.view)).toContain('vault_find_modal');
    // The modal is tied to alice: its external_id, which the bot updates it by.
    const externalId = (JSON.parse(String(open?.body.view)) as { external_id?: string }).external_id ?? '';
    const viewId = slack.externalIds.get(externalId) ?? '';
    const updates = slack.apiCalls('views.update').length;
    const submitted = await postPayload(bot.base, {
      type: 'view_submission',
      user: { id: SLACK_USERS.alice, team_id: 'T1' },
      team: { id: 'T1' },
      api_app_id: 'A1',
      token: 'legacy-verification-token',
      trigger_id: 'trigger-submit',
      view: {
        id: viewId,
        type: 'modal',
        callback_id: 'vault_find_modal',
        external_id: externalId,
        state: { values: { query: { vault_home_search: { type: 'plain_text_input', value: 'github' } } } },
      },
    });
    expect(submitted.json).toMatchObject({ response_action: 'update' });
    const [update] = await slack.waitFor(
      () => slack.apiCalls('views.update').length > updates && slack.apiCalls('views.update').slice(updates),
    );
    expect(update?.body.external_id).toBe(externalId);
    const view = String(update?.body.view);
    expect(view).toContain('github-deploy');
    expect(view).toContain('github-actions');
    expect(view).not.toContain('github-ops-token');
    expect(view).toContain('vault_reveal');
  });
});

describe('an approvals channel', () => {
  it('sends the request to the channel instead of DMs, and still counts only a listed approver’s click', async () => {
    const bot = await startBot(env({ APPROVALS_CHANNEL: 'CAPPROVE' }));
    try {
      const before = slack.apiCalls('chat.postMessage').length;
      await ask(bot, SLACK_USERS.alice, `request ${seeded.items['prod-db']} on call`);
      const posts = await slack.waitFor(
        () => requestPosts(slack, before).length > 0 && requestPosts(slack, before),
      );
      expect(posts.map((call) => call.body.channel)).toEqual(['CAPPROVE']);
      // Everyone in the channel reads it: what the requester typed and who may decide, no label.
      expect(String(posts[0]?.body.text)).not.toContain('prod-db');
      expect(String(posts[0]?.body.text)).toContain(`approvers who may read it: ${SLACK_USERS.bob}`);
      const requestId = elementsOf(posts[0] as RecordedCall)[0]?.value ?? '';
      // Anyone in the channel can click; only the folder's approvers count.
      expect((await press(bot, 'UANYONE', 'vault_request_approve', requestId)).text).toContain(
        'not an approver',
      );
      const updates = slack.apiCalls('chat.update').length;
      await click(bot.base, SLACK_USERS.bob, 'vault_request_deny', requestId, slack.responseUrl(nextId('c')));
      const [update] = await slack.waitFor(
        () => slack.apiCalls('chat.update').length > updates && slack.apiCalls('chat.update').slice(updates),
      );
      expect(update?.body.channel).toBe('CAPPROVE');
      expect(String(update?.body.text)).toContain(`Denied by ${SLACK_USERS.bob}`);
      expect(String(update?.body.text)).not.toContain('prod-db');
    } finally {
      await bot.stop();
    }
  });
});

describe('expiry and restarts', () => {
  it('expires an undecided request, says so to both sides, and refuses a late approval', async () => {
    const bot = await startBot(env({ REQUEST_EXPIRY_SECONDS: '1' }));
    try {
      const before = slack.apiCalls('chat.postMessage').length;
      await ask(bot, SLACK_USERS.alice, `request ${seeded.items['prod-db']}`);
      const [post] = await slack.waitFor(
        () => requestPosts(slack, before).length === 1 && requestPosts(slack, before),
      );
      expect(String(post?.body.text)).toContain('expires in 1 minutes');
      const requestId = elementsOf(post as RecordedCall)[0]?.value ?? '';
      const [told] = await slack.waitFor(
        () =>
          postsTo(slack, SLACK_USERS.alice, before).length > 0 && postsTo(slack, SLACK_USERS.alice, before),
        10_000,
      );
      expect(String(told?.body.text)).toContain('expired with no decision');
      await slack.waitFor(() =>
        slack
          .apiCalls('chat.update')
          .some((call) => String(call.body.text).startsWith('Expired with no decision')),
      );
      expect((await press(bot, SLACK_USERS.bob, 'vault_request_approve', requestId)).text).toContain(
        'already decided or has expired',
      );
      expect(
        (await bot.auditRecords()).some(
          (record) => record.event === 'access_request_expired' && record.requestId === requestId,
        ),
      ).toBe(true);
    } finally {
      await bot.stop();
    }
  });

  it('keeps a request across a restart of the bot', async () => {
    const dataDir = join(await mkdtemp(join(tmpdir(), 'slack-bot-requests-')), 'store');
    const first = await startBot(env({ BOT_DATA_DIR: dataDir }));
    const before = slack.apiCalls('chat.postMessage').length;
    let requestId = '';
    try {
      await ask(first, SLACK_USERS.alice, `request ${seeded.items['prod-db']}`);
      const [post] = await slack.waitFor(
        () => requestPosts(slack, before).length === 1 && requestPosts(slack, before),
      );
      requestId = elementsOf(post as RecordedCall)[0]?.value ?? '';
    } finally {
      await first.stop();
    }
    const second = await startBot(env({ BOT_DATA_DIR: dataDir }));
    try {
      const told = await approveAndTellAlice(second.base, requestId);
      expect(String(told?.body.text)).toContain('approved');
      const shown = await press(second, SLACK_USERS.alice, 'vault_reveal', String(seeded.items['prod-db']));
      expect(JSON.stringify(shown)).toContain(seeded.passwords['prod-db']);
    } finally {
      await second.stop();
    }
  });
});
