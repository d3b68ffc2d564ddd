// The Slack points of the third review (#31): linked accounts attacked. Real Bolt app, signed
// requests, the fake Slack and the TeamPass 3 fake over HTTP, which locks the bot's address
// after repeated failed sign-ins as TeamPass does.
import { type HoldingProxy, startHoldingProxy } from '@vaultline/protocol/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { nextId, postPayload, slash, startBot, type TestBot } from './support/bot.ts';
import { type FakeSlack, startFakeSlack } from './support/fake-slack.ts';
import { labelsOf, type Message, postsTo, textOf } from './support/messages.ts';
import { eventually } from './support/poll.ts';
import {
  type Driver,
  driver,
  linkKey,
  type SeededTeamPass3,
  startSeededTeamPass3,
  TP3_SLACK,
  TP3_USERS,
} from './support/teampass3.ts';

/** TeamPass's lockout of an address, lowered from 30 so that the attack stays short. */
const ADDRESS_LOCKOUT = 12;
/** The bot's budget of failed sign-ins per 24 h: well under the lockout. */
const BUDGET = 8;
/** TeamPass's lockout of a login, as it counts it. */
const LOGIN_LOCKOUT = 10;
/** How long the bot waits after TeamPass said it locked sign-ins. */
const LOCK_SECONDS = 600;

let tp: SeededTeamPass3;
let slack: FakeSlack;
let bot: TestBot;
let run: Driver;
let proxy: HoldingProxy;

beforeAll(async () => {
  [tp, slack] = await Promise.all([startSeededTeamPass3(), startFakeSlack()]);
  tp.fake.configure({
    failedSignInsPerIp: ADDRESS_LOCKOUT,
    failedSignInsPerLogin: LOGIN_LOCKOUT,
    lockMinutes: 10,
  });
  slack.channelIntervalMs = 0;
  // The bot reaches TeamPass through a proxy that can stop answering its sign-ins.
  proxy = await startHoldingProxy(tp.fake.url);
  bot = await startBot({
    VAULT_URL: proxy.url,
    LINK_ENCRYPTION_KEY: linkKey(),
    LINK_CREDENTIALS: 'password',
    LINK_ADMINS: TP3_SLACK.admin,
    LINK_FAILED_SIGN_INS_PER_DAY: String(BUDGET),
    LINK_FAILED_SIGN_INS_PER_LOGIN: '4',
    LINK_FAILED_SIGN_INS_PER_MEMBER: '3',
    VAULT_SIGN_IN_LOCK_SECONDS: String(LOCK_SECONDS),
    SLACK_API_URL: slack.apiUrl,
    APPROVERS_BY_FOLDER: `${tp.folders.dev}=${TP3_SLACK.alice}`,
    APPROVERS: TP3_SLACK.alice,
    GRANT_REVEALS: '1',
    REVEAL_SECONDS: '1',
    REVEAL_RATE_LIMIT: '100',
    COMMAND_RATE_LIMIT: '1000',
    AUDIT_CHANNEL: 'CAUDIT',
  });
  run = driver(bot, slack);
  const { outcome } = await run.link(TP3_SLACK.alice, TP3_USERS.alice);
  expect(textOf(outcome)).toContain('Linked to the TeamPass account alice');
});
afterAll(async () => {
  await bot?.stop();
  proxy?.release();
  await proxy?.close();
  await slack?.close();
  await tp?.fake.close();
});

/** Sign-ins TeamPass refused, so far. */
const failedSignIns = () =>
  tp.fake.requests.filter((request) => request.url.endsWith('/authorize') && request.status === 401).length;

/** The Slack DMs to the link admin since the `from`-th post. */
const adminPosts = (from: number) =>
  postsTo(slack, TP3_SLACK.admin, from).map((call) => String(call.body.text));

async function linkedRow(slackUser: string) {
  const [row] = await bot.bot.deps.db.query<Record<string, unknown>>(
    'SELECT * FROM linked_accounts WHERE slack_user = $1',
    [slackUser],
  );
  return row;
}

/** A link attempt's outcome, as the person sees it. */
const tryLink = async (member: string, login: string, password = 'guess') =>
  textOf((await run.link(member, { login, password, apiKey: 'k' })).outcome);

describe('failed sign-ins: caps per member and per login, a budget for the bot, a lock that passes', () => {
  beforeEach(async () => {
    await bot.bot.deps.db.query('DELETE FROM sign_in_failures');
    await bot.bot.deps.db.query('DELETE FROM rate_limits');
    // A day passes for TeamPass too: it forgets the failures as the bot does.
    tp.fake.clock.advance(25 * 3_600_000);
  });

  it('lets members lock only themselves: a colleague’s guesses keep neither the owner nor others out; a link admin lifts a block', async () => {
    const posted = slack.apiCalls('chat.postMessage').length;
    for (const guess of ['g1', 'g2', 'g3'])
      expect(await tryLink('UMAL1', 'bob', guess)).toContain('TeamPass refused the sign-in');
    // Their fourth attempt, whatever the login, is theirs alone to wait for.
    const capped = await tryLink('UMAL1', 'carol');
    expect(capped).toContain('You have had too many failed link attempts today');
    expect(capped).toContain('/vault unblock <member ID>');
    // Bob, with his own password, links: three guesses at his login did not lock him out.
    expect(textOf((await run.link(TP3_SLACK.bob, TP3_USERS.bob)).outcome)).toContain(
      'Linked to the TeamPass account bob',
    );
    // Nobody else is kept out either.
    expect(await tryLink('UMAL2', 'nobody')).toContain('TeamPass refused the sign-in');
    // A link admin lifts UMAL1's block; nobody else may.
    expect((await run.ask('UMAL2', 'unblock UMAL1')).answer.text).toContain('Only the bot’s link admins');
    expect((await run.ask(TP3_SLACK.admin, 'unblock <@UMAL1>')).answer.text).toContain(
      'Lifted UMAL1’s block',
    );
    expect(await tryLink('UMAL1', 'nobody')).toContain('TeamPass refused the sign-in');
    // The admins were told, with the member; the audit names who lifted it.
    const told = await eventually(() => {
      const posts = adminPosts(posted);
      return posts.length >= 1 && posts;
    });
    expect(told.join('\n')).toContain('UMAL1 failed 3 link attempts in 24 h');
    expect(await bot.auditRecords()).toContainEqual(
      expect.objectContaining({
        event: 'link_attempts_unblocked',
        slackUser: 'UMAL1',
        decidedBy: TP3_SLACK.admin,
        outcome: 'lifted:3:0',
      }),
    );
    await run.ask(TP3_SLACK.bob, 'unlink');
  });

  it('counts a login as TeamPass does: spellings it strips or folds are one login, capped under its lockout', async () => {
    const posted = slack.apiCalls('chat.postMessage').length;
    const audited = (await bot.auditRecords()).length;
    const spellings = ['carol<i1>', ' CAROL ', 'Cärol', 'carol<b></b>', 'carol<i5>'];
    const members = ['UMAL1', 'UMAL1', 'UMAL2', 'UMAL2', 'UMAL3'];
    const outcomes: string[] = [];
    for (const [index, login] of spellings.entries()) outcomes.push(await tryLink(members[index]!, login));
    expect(outcomes.slice(0, 4).every((text) => text.includes('TeamPass refused the sign-in'))).toBe(true);
    expect(outcomes[4]).toContain('Too many failed attempts to link this TeamPass login today');
    // TeamPass counted four failures of carol, under its lockout: carol links.
    expect(
      tp.fake.requests.filter((request) => request.url.endsWith('/authorize') && request.status === 401),
    ).not.toHaveLength(0);
    tp.fake.configure({ failedSignInsPerLogin: 5 });
    // The cap stays until lifted: carol is kept from her own login, and asks a link admin.
    expect(await tryLink(TP3_SLACK.carol, 'carol', TP3_USERS.carol.password)).toContain(
      'Too many failed attempts to link this TeamPass login today',
    );
    await run.ask(TP3_SLACK.admin, `unblock ${TP3_SLACK.carol}`);
    expect(textOf((await run.link(TP3_SLACK.carol, TP3_USERS.carol)).outcome)).toContain(
      'Linked to the TeamPass account carol',
    );
    tp.fake.configure({ failedSignInsPerLogin: LOGIN_LOCKOUT });
    // The admins' message and the audit name the same login reference, never what was typed.
    const told = await eventually(() => {
      const posts = adminPosts(posted).filter((post) => post.includes('Link attempts at the login'));
      return posts.length >= 1 && posts;
    });
    const ref = /login#[A-Za-z0-9_-]{12}/.exec(told[0]!)?.[0];
    expect(ref).toBeDefined();
    const failed = (await bot.auditRecords())
      .slice(audited)
      .filter((record) => record.event === 'account_link_failed');
    expect(failed.filter((record) => record.target === ref)).toHaveLength(6);
    expect(JSON.stringify(failed)).not.toContain('carol<');
    await run.ask(TP3_SLACK.carol, 'unlink');
  });

  it('keeps the bot’s address under TeamPass’s lockout: the budget stops attempts, linked people work on', async () => {
    const before = failedSignIns();
    const posted = slack.apiCalls('chat.postMessage').length;
    const outcomes: string[] = [];
    for (const member of ['UMAL1', 'UMAL2', 'UMAL3', 'UMAL4'])
      for (let attempt = 0; attempt < 3; attempt++)
        outcomes.push(await tryLink(member, `victim-${member}-${attempt}`));
    expect(failedSignIns() - before).toBe(BUDGET);
    expect(outcomes.filter((text) => text.includes('too many failed TeamPass sign-ins today'))).toHaveLength(
      12 - BUDGET,
    );
    const told = await eventually(() => {
      const posts = adminPosts(posted).filter((post) => post.includes('spent its budget'));
      return posts.length >= 1 && posts;
    });
    expect(told).toHaveLength(1);
    expect(told[0]).toContain(`(${BUDGET} in 24 h`);
    // Alice, linked before, signs in again (her session ended): TeamPass did not lock the address.
    tp.fake.revokeSessions('alice');
    const { answer } = await run.ask(TP3_SLACK.alice, 'find github');
    expect(labelsOf(answer)).toEqual(['github-deploy']);
  });

  it('waits only on the login TeamPass locked: her own locked login freezes nobody else’s link', async () => {
    // Carol locks her own login at TeamPass's sign-in page.
    tp.fake.configure({ failedSignInsPerLogin: 1 });
    const locked = await fetch(`${tp.fake.apiUrl}/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'carol', password: 'wrong', apikey: 'wrong' }),
    });
    expect(locked.status).toBe(401);
    tp.fake.configure({ failedSignInsPerLogin: LOGIN_LOCKOUT });
    const posted = slack.apiCalls('chat.postMessage').length;
    expect(textOf((await run.link(TP3_SLACK.carol, TP3_USERS.carol)).outcome)).toContain(
      'TeamPass has locked sign-ins of this login for a while',
    );
    // Frank links meanwhile.
    expect(textOf((await run.link(TP3_SLACK.frank, TP3_USERS.frank)).outcome)).toContain(
      'Linked to the TeamPass account frank',
    );
    // Carol's next attempt is not tried at all.
    const signIns = tp.fake.requests.filter((request) => request.url.endsWith('/authorize')).length;
    expect(textOf((await run.link(TP3_SLACK.carol, TP3_USERS.carol)).outcome)).toContain(
      'Nothing was tried. Please try again in 10 min',
    );
    expect(tp.fake.requests.filter((request) => request.url.endsWith('/authorize')).length).toBe(signIns);
    const told = await eventually(() => {
      const posts = adminPosts(posted).filter((post) =>
        post.includes('TeamPass locked sign-ins of the login'),
      );
      return posts.length > 0 && posts;
    });
    expect(told).toHaveLength(1);
    expect(told[0]).toContain(`${TP3_SLACK.carol} met the lock`);
    // After TeamPass's lock and the bot's wait, carol links.
    tp.fake.clock.advance(11 * 60_000);
    await bot.bot.deps.db.query("DELETE FROM sign_in_failures WHERE kind = 'lock'");
    expect(textOf((await run.link(TP3_SLACK.carol, TP3_USERS.carol)).outcome)).toContain(
      'Linked to the TeamPass account carol',
    );
    await run.ask(TP3_SLACK.carol, 'unlink');
    await run.ask(TP3_SLACK.frank, 'unlink');
  });

  it('keeps counted a sign-in that got no answer in time: TeamPass may have counted it', async () => {
    const { arrived } = proxy.hold((path) => path.endsWith('/authorize'));
    const attempt = tryLink('UMAL5', 'nobody-in-time');
    await arrived;
    const outcome = await attempt;
    proxy.release();
    expect(outcome).not.toContain('Linked to');
    const [row] = await bot.bot.deps.db.query<{ n: string | number }>(
      "SELECT count(*) AS n FROM sign_in_failures WHERE kind = 'failure' AND slack_user = 'UMAL5'",
    );
    expect(Number(row?.n)).toBe(1);
  });

  it('keeps the link when TeamPass locked sign-ins, says how long, and works after the lock', async () => {
    tp.fake.configure({ failedSignInsPerIp: 1 });
    const locked = await fetch(`${tp.fake.apiUrl}/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'nobody', password: 'wrong', apikey: 'wrong' }),
    });
    expect(locked.status).toBe(401);
    tp.fake.configure({ failedSignInsPerIp: 100 });
    tp.fake.revokeSessions('alice');
    const during = await run.ask(TP3_SLACK.alice, 'find github');
    expect(during.answer.text).toContain('TeamPass has locked sign-ins through the bot for a while');
    expect(during.answer.text).toContain('Your link is kept: please try again in 10 min');
    expect(await linkedRow(TP3_SLACK.alice)).toMatchObject({ refused_at: null });
    tp.fake.clock.advance(11 * 60_000);
    const after = await run.ask(TP3_SLACK.alice, 'find github');
    expect(labelsOf(after.answer)).toEqual(['github-deploy']);
  });
});

describe('the link form’s login box', () => {
  beforeEach(async () => {
    await bot.bot.deps.db.query("DELETE FROM rate_limits WHERE key LIKE 'signin%'");
  });

  it('never audits, posts or refills a password typed into the login box', async () => {
    const typed = TP3_USERS.frank.password;
    const posted = slack.apiCalls('chat.postMessage').length;
    const { outcome } = await run.link(TP3_SLACK.frank, {
      login: typed,
      password: 'not-the-password',
      apiKey: TP3_USERS.frank.apiKey,
    });
    expect(textOf(outcome)).toContain('TeamPass refused the sign-in');
    const login = outcome?.blocks?.find((block) => block.block_id === 'link_login');
    expect(login?.element?.initial_value).toBeUndefined();
    expect(JSON.stringify(outcome)).not.toContain(typed);
    const records = await bot.auditRecords();
    expect(records.at(-1)).toMatchObject({ event: 'account_link_failed', slackUser: TP3_SLACK.frank });
    expect(records.at(-1)?.login).toBeUndefined();
    expect(JSON.stringify(records)).not.toContain(typed);
    await bot.bot.deps.audit.flush(5000);
    const auditPosts = await eventually(() => {
      const posts = postsTo(slack, 'CAUDIT', posted);
      return posts.some((call) => String(call.body.text).includes(TP3_SLACK.frank)) && posts;
    });
    expect(JSON.stringify(auditPosts)).not.toContain(typed);
    expect(bot.logLines.join('\n')).not.toContain(typed);
    // A login-shaped one comes back, and the linked login is the one TeamPass confirmed.
    const again = await run.link(TP3_SLACK.frank, {
      login: 'frank',
      password: 'not-the-password',
      apiKey: TP3_USERS.frank.apiKey,
    });
    const refilled = again.outcome?.blocks?.find((block) => block.block_id === 'link_login');
    expect(refilled?.element?.initial_value).toBe('frank');
    const linked = await run.link(TP3_SLACK.frank, TP3_USERS.frank);
    expect(textOf(linked.outcome)).toContain('Linked to the TeamPass account');
    // The last record of its kind: a grant expiring meanwhile writes its own.
    expect(
      (await bot.auditRecords()).filter((record) => record.event === 'account_linked').at(-1),
    ).toMatchObject({
      slackUser: TP3_SLACK.frank,
    });
  });
});

describe('a granted reveal', () => {
  it('is spent only when the value was read, and once under concurrent clicks', async () => {
    if (!(await linkedRow(TP3_SLACK.bob))) await run.link(TP3_SLACK.bob, TP3_USERS.bob);
    const item = tp.items['staging-db'] ?? 0;
    const before = slack.apiCalls('chat.postMessage').length;
    await run.ask(TP3_SLACK.bob, `request ${item} fixing staging`);
    const [post] = await slack.waitFor(() => {
      const posts = postsTo(slack, TP3_SLACK.alice, before).filter((call) =>
        String(call.body.text).startsWith('Access request from'),
      );
      return posts.length > 0 && posts;
    });
    const blocks = JSON.parse(String(post?.body.blocks)) as {
      elements?: { action_id?: string; value?: string }[];
    }[];
    const requestId =
      blocks.flatMap((block) => block.elements ?? []).find((e) => e.action_id === 'vault_request_approve')
        ?.value ?? '';
    const approved = slack.apiCalls('chat.postMessage').length;
    await run.click(TP3_SLACK.alice, 'vault_request_approve', requestId);
    await slack.waitFor(() => postsTo(slack, TP3_SLACK.bob, approved).length > 0);
    // Alice may not read the item for a while: the reveal is refused, and the grant is not spent.
    tp.fake.removeRole('alice', 'Devs');
    const refused = await run.press(TP3_SLACK.bob, 'vault_reveal', String(item));
    expect(refused.text).toBe('You cannot read this item (any more), so its password is not shown.');
    const [row] = await bot.bot.deps.db.query<{ reveals_left: number }>(
      'SELECT reveals_left FROM access_requests WHERE id = $1',
      [requestId],
    );
    expect(row?.reveals_left).toBe(1);
    tp.fake.addRole('alice', 'Devs');
    // Two clicks at once on the one reveal left: one shows the password, the other nothing.
    const answers = await Promise.all([
      run.press(TP3_SLACK.bob, 'vault_reveal', String(item)),
      run.press(TP3_SLACK.bob, 'vault_reveal', String(item)),
    ]);
    const shown = answers.filter((answer) => textOf(answer).includes(tp.passwords['staging-db'] ?? '?'));
    expect(shown).toHaveLength(1);
    expect(answers.map((answer) => answer.text)).toContain(
      'You cannot read this item (any more), so its password is not shown.',
    );
  });
});

describe('the command’s first word', () => {
  it('echoes only a short word, and reads link glued to punctuation as link', async () => {
    const secret = 'Hunter7!Quokka#Blue';
    const ask = async (text: string) =>
      (await slash(bot.base, { text, user_id: TP3_SLACK.carol, response_url: slack.responseUrl(nextId()) }))
        .json as Message;
    const glued = await ask(`link:alice:${secret}`);
    expect(glued.text).toContain('Never type a password, key or token in Slack');
    expect(JSON.stringify(glued)).not.toContain(secret);
    expect(JSON.stringify(await ask(`login=${secret}`))).not.toContain(secret);
    const unknown = await ask(secret);
    expect(unknown.text).toContain('Unknown subcommand.');
    expect(JSON.stringify(unknown)).not.toContain('Hunter7');
    expect((await ask('fnd github')).text).toContain('Unknown subcommand “fnd”');
    expect(bot.logLines.join('\n')).not.toContain(secret);
  });
});

describe('the view owner guard', () => {
  it('checks the external_id of a view whatever type the payload gives it', async () => {
    await bot.bot.deps.db.query("DELETE FROM rate_limits WHERE key LIKE 'signin%'");
    const { externalId } = await run.openLinkForm(TP3_SLACK.dave);
    const field = (value: string) => ({ value: { type: 'plain_text_input', value } });
    const forged = await postPayload(bot.base, {
      type: 'view_submission',
      user: { id: 'UMAL9', team_id: 'T1' },
      team: { id: 'T1' },
      api_app_id: 'A1',
      token: 'legacy-verification-token',
      trigger_id: 'trigger-forged',
      view: {
        id: 'VFORGED',
        type: 'workflow_step',
        callback_id: 'vault_link_modal',
        external_id: externalId,
        blocks: [{ type: 'input', block_id: 'link_login' }],
        state: {
          values: {
            link_login: field('carol'),
            link_password: field(TP3_USERS.carol.password),
            link_api_key: field(TP3_USERS.carol.apiKey),
          },
        },
      },
    });
    expect(forged.json).toMatchObject({ response_action: 'errors' });
    expect(await linkedRow('UMAL9')).toBeUndefined();
    // The last record of its kind: a grant expiring meanwhile writes its own.
    expect(
      (await bot.auditRecords()).filter((record) => record.event === 'view_refused').at(-1),
    ).toMatchObject({
      slackUser: 'UMAL9',
    });
  });
});
