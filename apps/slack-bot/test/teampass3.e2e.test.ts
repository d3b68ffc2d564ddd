// Issue 20, part 4: the bot against TeamPass 3 (the fake, over HTTP), where no key reads another
// user's rights: each person links their own account in a modal, kept sealed, and every find,
// get and reveal runs as them. Real Bolt app, signed requests, the fake Slack.
import { FORMAT_VERSION } from '@vaultline/sealer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextId, postPayload, slash, startBot, type TestBot } from './support/bot.ts';
import { type FakeSlack, startFakeSlack } from './support/fake-slack.ts';
import { buttonsOf, labelsOf, type Message, textOf } from './support/messages.ts';
import { eventually } from './support/poll.ts';
import {
  type Driver,
  driver,
  ENTITY_LABEL,
  HOSTILE_LABEL,
  linkKey,
  type SeededTeamPass3,
  startSeededTeamPass3,
  TP3_BULK,
  TP3_SLACK,
  TP3_USERS,
} from './support/teampass3.ts';

let tp: SeededTeamPass3;
let slack: FakeSlack;
let bot: TestBot;
let run: Driver;
/** Every personal access token made for a test: scanned for with the passwords. */
const tokensMade: string[] = [];

beforeAll(async () => {
  [tp, slack] = await Promise.all([startSeededTeamPass3(), startFakeSlack()]);
  slack.channelIntervalMs = 0;
  bot = await startBot({
    VAULT_URL: tp.fake.url,
    LINK_ENCRYPTION_KEY: linkKey(),
    LINK_CREDENTIALS: 'both',
    LINK_ADMINS: TP3_SLACK.admin,
    // The budget of failed sign-ins and the cap per login have their own tests (link-review).
    LINK_FAILED_SIGN_INS_PER_DAY: '1000',
    LINK_FAILED_SIGN_INS_PER_LOGIN: '100',
    LINK_FAILED_SIGN_INS_PER_MEMBER: '100',
    SLACK_API_URL: slack.apiUrl,
    APPROVERS: TP3_SLACK.bob,
    APPROVERS_BY_FOLDER: `${tp.folders.dev}=${TP3_SLACK.alice}`,
    REVEAL_SECONDS: '1',
    REVEAL_RATE_LIMIT: '100',
    COMMAND_RATE_LIMIT: '1000',
    AUDIT_CHANNEL: 'CAUDIT',
  });
  run = driver(bot, slack);
});
afterAll(async () => {
  await bot?.stop();
  await slack?.close();
  await tp?.fake.close();
});

const linkAs = (name: 'alice' | 'bob' | 'carol', slackUser: string) =>
  run.link(slackUser, {
    login: TP3_USERS[name].login,
    password: TP3_USERS[name].password,
    apiKey: TP3_USERS[name].apiKey,
  });

async function linkedRow(slackUser: string) {
  const [row] = await bot.bot.deps.db.query<Record<string, unknown>>(
    'SELECT * FROM linked_accounts WHERE slack_user = $1',
    [slackUser],
  );
  return row;
}

describe('linking', () => {
  it('asks an unlinked person to link, with a button that opens the form, and shows them nothing', async () => {
    const { answer } = await run.ask(TP3_SLACK.alice, 'find github');
    expect(answer.text).toContain('Link your TeamPass account');
    expect(buttonsOf(answer).map((button) => button.action_id)).toEqual(['vault_link_open']);
    expect(labelsOf(answer)).toEqual([]);
    const home = await run.home(TP3_SLACK.alice);
    expect(textOf(home)).toContain('vault_link_open');
    expect(textOf(home)).not.toContain('vault_home_search');
    // Nothing reached TeamPass for her.
    expect(tp.fake.signIns('alice')).toBe(0);
  });

  it('links with login, password and API key, checked by one sign-in, kept sealed', async () => {
    const { externalId, view } = await run.openLinkForm(TP3_SLACK.alice);
    expect(externalId).toMatch(/^vl\.UALICE\./);
    const inputs = (view.blocks ?? [])
      .filter((block) => block.type === 'input')
      .map((block) => block.block_id);
    expect(inputs).toEqual(['link_login', 'link_password', 'link_api_key', 'link_token']);
    const { ack, outcome } = await run.submitLinkForm(TP3_SLACK.alice, externalId, {
      login: TP3_USERS.alice.login,
      password: TP3_USERS.alice.password,
      apiKey: TP3_USERS.alice.apiKey,
    });
    // The form leaves Slack's view at once: the ack replaces it with a note.
    expect(textOf(ack)).toContain('Checking your TeamPass account');
    expect(textOf(ack)).not.toContain(TP3_USERS.alice.password);
    expect(textOf(outcome)).toContain('Linked to the TeamPass account alice');
    expect(tp.fake.signIns('alice')).toBe(1);

    const row = await linkedRow(TP3_SLACK.alice);
    expect(row).toMatchObject({ login: 'alice', method: 'password', refused_at: null });
    const stored = JSON.stringify(row);
    for (const secret of [TP3_USERS.alice.password, TP3_USERS.alice.apiKey, ...tp.fake.tokens('alice')])
      expect(stored).not.toContain(secret);
    // In the sealer's format, base64url: version 2, then the key id.
    for (const sealed of [row?.credentials, row?.session_token]) {
      expect(String(sealed)).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(Buffer.from(String(sealed), 'base64url')[0]).toBe(FORMAT_VERSION);
    }

    const home = await run.home(TP3_SLACK.alice);
    expect(textOf(home)).toContain('Linked to the TeamPass account alice (password and API key');
    expect(textOf(home)).toContain('vault_unlink');
    expect(textOf(home)).toContain('vault_home_search');
    const audit = (await bot.auditRecords()).filter((record) => record.event === 'account_linked');
    expect(audit).toEqual([
      expect.objectContaining({ slackUser: TP3_SLACK.alice, login: 'alice', outcome: 'linked:password' }),
    ]);
  });

  it('refuses a wrong password: says what to check, keeps nothing, audits the attempt', async () => {
    const { outcome } = await run.link(TP3_SLACK.carol, {
      login: 'carol',
      password: 'Not-Carols-Password-123',
      apiKey: TP3_USERS.carol.apiKey,
    });
    expect(textOf(outcome)).toContain('TeamPass refused the sign-in: check the login');
    // The form comes back with the login only.
    const login = outcome?.blocks?.find((block) => block.block_id === 'link_login');
    expect(login?.element?.initial_value).toBe('carol');
    expect(textOf(outcome)).not.toContain('Not-Carols-Password-123');
    expect(textOf(outcome)).not.toContain(TP3_USERS.carol.apiKey);
    expect(await linkedRow(TP3_SLACK.carol)).toBeUndefined();
    // The log names TeamPass's fixed words, never what was typed.
    const logs = bot.logLines.join('\n');
    expect(logs).toContain('Login failed. (Invalid credentials)');
    expect(logs).not.toContain('Not-Carols-Password-123');
    expect(
      (await bot.auditRecords()).filter((record) => record.event === 'account_link_failed').at(-1),
    ).toMatchObject({
      slackUser: TP3_SLACK.carol,
      outcome: 'error:unauthorized',
    });
  });

  it('refuses an account whose API access is off, one that may not read, and a TeamPass whose API is off', async () => {
    const dave = await run.link(TP3_SLACK.dave, TP3_USERS.dave);
    expect(textOf(dave.outcome)).toContain(
      'TeamPass answers the same way when the account’s API access is switched off',
    );
    const erin = await run.link(TP3_SLACK.erin, TP3_USERS.erin);
    expect(textOf(erin.outcome)).toContain('may not read through the API');
    // Erin could sign in: her session was signed out again.
    expect(liveSessions('erin')).toEqual([]);
    tp.fake.configure({ api: false });
    try {
      const off = await run.link(TP3_SLACK.carol, TP3_USERS.carol);
      expect(textOf(off.outcome)).toContain('its API is switched off');
    } finally {
      tp.fake.configure({ api: true });
    }
    for (const user of [TP3_SLACK.dave, TP3_SLACK.erin, TP3_SLACK.carol])
      expect(await linkedRow(user)).toBeUndefined();
    const outcomes = (await bot.auditRecords())
      .filter((record) => record.event === 'account_link_failed')
      .map((record) => `${record.slackUser}:${record.outcome}`);
    expect(outcomes).toEqual(
      expect.arrayContaining([
        `${TP3_SLACK.dave}:error:unauthorized`,
        `${TP3_SLACK.erin}:api_read_off`,
        `${TP3_SLACK.carol}:error:api_disabled`,
      ]),
    );
  });

  it('limits link attempts per person, so nobody spends the bot address’s sign-in failures', async () => {
    const signInsTried = () =>
      tp.fake.requests.filter(
        (request) => request.url.endsWith('/authorize') && request.body.includes('mallory'),
      ).length;
    for (let attempt = 1; attempt <= 5; attempt++) {
      const { outcome } = await run.link('UMALLORY', {
        login: 'mallory',
        password: `guess-${attempt}`,
        apiKey: 'k',
      });
      expect(textOf(outcome)).toContain('TeamPass refused the sign-in');
    }
    const { outcome } = await run.link('UMALLORY', { login: 'mallory', password: 'guess-6', apiKey: 'k' });
    expect(textOf(outcome)).toContain('Too many link attempts in a short time');
    expect(signInsTried()).toBe(5);
    expect(
      (await bot.auditRecords()).filter((record) => record.event === 'account_link_failed').at(-1),
    ).toMatchObject({
      slackUser: 'UMALLORY',
      outcome: 'rate_limited',
    });
  });

  it('says what is missing in the form, without asking TeamPass or repeating a value', async () => {
    const { externalId } = await run.openLinkForm(TP3_SLACK.carol);
    const before = tp.fake.requests.length;
    const missingKey = await run.submitLinkForm(TP3_SLACK.carol, externalId, {
      login: 'carol',
      password: TP3_USERS.carol.password,
    });
    expect(missingKey.ack).toMatchObject({
      response_action: 'errors',
      errors: { link_api_key: 'Your personal API key, please.' },
    });
    const both = await run.submitLinkForm(TP3_SLACK.carol, externalId, {
      login: 'carol',
      password: TP3_USERS.carol.password,
      apiKey: TP3_USERS.carol.apiKey,
      token: 'a'.repeat(64),
    });
    expect(both.ack).toMatchObject({
      response_action: 'errors',
      errors: { link_token: expect.stringContaining('not both') },
    });
    const nothing = await run.submitLinkForm(TP3_SLACK.carol, externalId, { login: '  ' });
    expect(Object.keys((nothing.ack?.errors ?? {}) as object)).toEqual(['link_login', 'link_password']);
    expect(textOf(missingKey.ack) + textOf(both.ack)).not.toContain(TP3_USERS.carol.password);
    expect(tp.fake.requests.length).toBe(before);
  });

  it('refuses a submission of someone else’s link form', async () => {
    const { externalId } = await run.openLinkForm(TP3_SLACK.carol);
    const forged = await run.submitLinkForm(TP3_SLACK.bob, externalId, TP3_USERS.bob);
    expect(forged.ack).toMatchObject({
      response_action: 'errors',
      errors: { link_login: expect.stringContaining('out of date') },
    });
    expect(await linkedRow(TP3_SLACK.bob)).toBeUndefined();
    expect(await linkedRow(TP3_SLACK.carol)).toBeUndefined();
  });

  it('never takes credentials typed after /vault link (or login): refuses without repeating, keeping or logging them', async () => {
    const typed = 'alice Typed-By-Mistake-Pw-42!';
    for (const word of ['link', 'login']) {
      const res = await postSlash(`${word} ${typed}`);
      expect(res.json?.text).toContain('Never type a password');
      expect(JSON.stringify(res.json)).not.toContain('Typed-By-Mistake');
    }
    const alone = await postSlash('link');
    expect(buttonsOf(alone.json as Message).map((button) => button.action_id)).toEqual(['vault_link_open']);
    expect(bot.logLines.join('\n')).not.toContain('Typed-By-Mistake');
    const audit = await bot.auditRecords();
    expect(JSON.stringify(audit)).not.toContain('Typed-By-Mistake');
    expect(audit.filter((record) => record.event === 'link_typed_in_command')).toHaveLength(2);
    for (const call of slack.calls) expect(call.raw).not.toContain('Typed-By-Mistake');
  });
});

async function postSlash(text: string, user: string = TP3_SLACK.carol) {
  return slash(bot.base, { text, user_id: user, response_url: slack.responseUrl(nextId()) });
}

describe('as each person, with the rights TeamPass enforces', () => {
  beforeAll(async () => {
    if (!(await linkedRow(TP3_SLACK.alice))) await linkAs('alice', TP3_SLACK.alice);
    await linkAs('bob', TP3_SLACK.bob);
  });

  it('finds, gets, pages, shows logins and reveals as alice, with no sign-in beyond the link’s', async () => {
    // Goal 1: one sign-in per person per token lifetime: the link's, and no other.
    expect(tp.fake.signIns('alice')).toBe(1);
    const from = tp.fake.requests.length;
    const find = await run.ask(TP3_SLACK.alice, 'find github');
    expect(labelsOf(find.answer)).toEqual(['github-deploy']);
    const get = await run.ask(TP3_SLACK.alice, `get ${tp.items['staging-db']}`);
    expect(labelsOf(get.answer)).toEqual(['staging-db']);
    const bulk = await run.ask(TP3_SLACK.alice, 'find bulk');
    expect(bulk.answer.text).toContain(`: ${TP3_BULK} (page 1 of 2)`);
    const next = buttonsOf(bulk.answer).find((button) => button.action_id === 'vault_page_next');
    const page = await run.press(TP3_SLACK.alice, 'vault_page_next', next?.value ?? '');
    expect(page.text).toContain('(page 2 of 2)');
    const login = await run.press(TP3_SLACK.alice, 'vault_show_login', String(tp.items['github-deploy']));
    expect(textOf(login)).toContain('deploy-bot');
    const shown = await run.press(TP3_SLACK.alice, 'vault_reveal', String(tp.items['github-deploy']));
    expect(textOf(shown)).toContain(tp.passwords['github-deploy']);
    expect(shown.text).not.toContain(tp.passwords['github-deploy']);
    // Every call ran as alice, with the token of her link's sign-in.
    expect(tp.fake.signIns('alice')).toBe(1);
    const calls = tp.fake.requests.slice(from);
    expect(calls.length).toBeGreaterThan(5);
    expect(new Set(calls.map((request) => `${request.login}:${request.status}`))).toEqual(
      new Set(['alice:200']),
    );
  });

  it('shows bob nothing of alice’s folder: not in a search, not by id, not by a forged reveal', async () => {
    expect(labelsOf((await run.ask(TP3_SLACK.bob, 'find github')).answer)).toEqual(['github-ops-token']);
    expect(labelsOf((await run.ask(TP3_SLACK.bob, 'find wifi')).answer)).toEqual(['office-wifi']);
    const byId = await run.ask(TP3_SLACK.bob, `get ${tp.items['github-deploy']}`);
    expect(byId.answer.text).toContain('No item you can read has the id or label');
    const missing = await run.ask(TP3_SLACK.bob, 'get 987654');
    expect(textOf(byId.answer).replaceAll(String(tp.items['github-deploy']), 'ID')).toBe(
      textOf(missing.answer).replaceAll('987654', 'ID'),
    );
    const reveal = await run.press(TP3_SLACK.bob, 'vault_reveal', String(tp.items['github-deploy']));
    expect(reveal.text).toContain('You cannot read this item');
    expect(textOf(reveal)).not.toContain(tp.passwords['github-deploy']);
    const login = await run.press(TP3_SLACK.bob, 'vault_show_login', String(tp.items['root-ca']));
    expect(login.text).toContain('You cannot read this item');
  });

  it('shows labels with entities and emoji decoded once, then escaped for Slack', async () => {
    const { answer } = await run.ask(TP3_SLACK.alice, 'find jerry');
    expect(labelsOf(answer)).toEqual(['Tom &amp; Jerry &lt;db&gt; "quoted" it\'s ☕ 🚀']);
    expect(textOf(answer)).not.toMatch(/&amp;amp;|&amp;lt;|&#039;|&quot;/);
    expect(textOf(answer)).toContain('Login: tom &amp; &lt;jerry&gt;');
    const hostile = await run.ask(TP3_SLACK.alice, 'find evil');
    expect(textOf(hostile.answer)).not.toMatch(/<!here>|<https:\/\/evil|<@U999>/);
    expect(labelsOf(hostile.answer)).toHaveLength(1);
    const byLabel = await run.ask(TP3_SLACK.alice, `get ${ENTITY_LABEL}`);
    expect(labelsOf(byLabel.answer)).toHaveLength(1);
    expect(HOSTILE_LABEL).toContain('<!here>');
  });

  it('signs in once again after the token expired, and only once', async () => {
    const signIns = tp.fake.signIns('alice');
    tp.fake.clock.advance(61 * 60_000);
    const first = await run.ask(TP3_SLACK.alice, 'find staging');
    expect(labelsOf(first.answer)).toEqual(['staging-db']);
    await Promise.all([run.ask(TP3_SLACK.alice, 'find github'), run.ask(TP3_SLACK.alice, 'find wifi')]);
    expect(tp.fake.signIns('alice')).toBe(signIns + 1);
  });

  it('answers a 429 storm with “try again”, each person alone, with no extra sign-in and nothing leaked', async () => {
    const signIns = tp.fake.signIns();
    tp.fake.configure({ rateLimitPerMinute: 6 });
    try {
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, index) => run.ask(TP3_SLACK.alice, `find storm${index}`)),
      );
      const busy = answers.filter(({ answer }) => String(answer.text).includes('TeamPass is busy'));
      expect(busy.length).toBeGreaterThan(0);
      expect(String(busy[0]?.answer.text)).toMatch(/try again in \d+ s/);
      for (const { answer } of answers)
        expect(String(answer.text)).toMatch(/TeamPass is busy|No item you can read matches/);
    } finally {
      tp.fake.configure({ rateLimitPerMinute: 0 });
    }
    expect(tp.fake.signIns()).toBe(signIns);
    // Still alice's link: a 429 is no refusal of her account.
    expect((await linkedRow(TP3_SLACK.alice))?.refused_at).toBeNull();
    expect(labelsOf((await run.ask(TP3_SLACK.alice, 'find staging')).answer)).toEqual(['staging-db']);
  });
});

describe('request access, read with the approver’s own account', () => {
  it('reveals alice’s item to bob once alice approves, read as alice at reveal time; the audit names both', async () => {
    if (!(await linkedRow(TP3_SLACK.alice))) await linkAs('alice', TP3_SLACK.alice);
    if (!(await linkedRow(TP3_SLACK.bob))) await linkAs('bob', TP3_SLACK.bob);
    const item = tp.items['staging-db'] ?? 0;
    const before = slack.apiCalls('chat.postMessage').length;
    const { answer } = await run.ask(TP3_SLACK.bob, `request ${item} fixing staging`);
    expect(answer.text).toContain('went to the approvers');
    const [post] = await slack.waitFor(() => {
      const posts = slack
        .apiCalls('chat.postMessage')
        .slice(before)
        .filter((call) => String(call.body.text).startsWith('Access request from'));
      return posts.length > 0 && posts;
    });
    expect(post?.body.channel).toBe(TP3_SLACK.alice);
    expect(String(post?.body.text)).toContain('staging-db');
    const blocks = JSON.parse(String(post?.body.blocks)) as {
      elements?: { action_id?: string; value?: string }[];
    }[];
    const requestId =
      blocks.flatMap((block) => block.elements ?? []).find((e) => e.action_id === 'vault_request_approve')
        ?.value ?? '';
    // Bob cannot approve his own request.
    expect((await run.press(TP3_SLACK.bob, 'vault_request_approve', requestId)).text).toContain(
      'Nobody decides their own',
    );
    const approved = slack.apiCalls('chat.postMessage').length;
    await run.click(TP3_SLACK.alice, 'vault_request_approve', requestId);
    await slack.waitFor(() =>
      slack
        .apiCalls('chat.postMessage')
        .slice(approved)
        .some((call) => call.body.channel === TP3_SLACK.bob),
    );
    const reads = tp.fake.requests.length;
    const shown = await run.press(TP3_SLACK.bob, 'vault_reveal', String(item));
    expect(textOf(shown)).toContain(tp.passwords['staging-db']);
    // The value came from TeamPass with alice's token, never bob's.
    const itemReads = tp.fake.requests
      .slice(reads)
      .filter((request) => request.url.includes('/item/get') && request.status === 200);
    expect(itemReads.map((request) => request.login)).toContain('alice');
    // The outcome is written once Slack took the message: just after the answer arrived here.
    const reveal = await eventually(async () =>
      (await bot.auditRecords()).find(
        (record) => record.event === 'reveal' && record.requestId === requestId && record.outcome === 'shown',
      ),
    );
    expect(reveal).toMatchObject({
      slackUser: TP3_SLACK.bob,
      login: 'bob',
      decidedBy: TP3_SLACK.alice,
      readAs: 'alice',
    });
    expect(JSON.stringify(await bot.auditRecords())).not.toContain(tp.passwords['staging-db']);
  });

  it('answers the requester the same when the approver unlinked before the reveal', async () => {
    const item = tp.items['github-deploy'] ?? 0;
    const before = slack.apiCalls('chat.postMessage').length;
    await run.ask(TP3_SLACK.bob, `request ${item}`);
    const [post] = await slack.waitFor(() => {
      const posts = slack
        .apiCalls('chat.postMessage')
        .slice(before)
        .filter((call) => String(call.body.text).startsWith('Access request from'));
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
    await slack.waitFor(() =>
      slack
        .apiCalls('chat.postMessage')
        .slice(approved)
        .some((call) => call.body.channel === TP3_SLACK.bob),
    );
    await run.clickHome(TP3_SLACK.alice, 'vault_unlink');
    await eventually(async () => (await linkedRow(TP3_SLACK.alice)) === undefined);
    const refused = await run.press(TP3_SLACK.bob, 'vault_reveal', String(item));
    expect(refused.text).toBe('You cannot read this item (any more), so its password is not shown.');
    expect(
      (await bot.auditRecords()).find(
        (record) => record.event === 'reveal_denied' && record.requestId === requestId,
      ),
    ).toMatchObject({
      outcome: 'approver_unlinked',
      decidedBy: TP3_SLACK.alice,
    });
  });
});

/** A user's sessions TeamPass still accepts: neither signed out nor expired. */
function liveSessions(login: string) {
  const now = Math.floor(tp.fake.clock.now() / 1000);
  return tp.fake
    .sessions(login)
    .filter((session) => session.revokedAt === undefined && session.expiresAt >= now)
    .map((session) => session.jti);
}

describe('personal access tokens', () => {
  it('links with a token where TeamPass allows them, and is refused with a clear sentence where it does not', async () => {
    const token = tp.fake.createPersonalAccessToken('frank');
    tokensMade.push(token);
    const off = await run.link(TP3_SLACK.frank, { login: 'frank', token });
    expect(textOf(off.outcome)).toContain('does not accept personal access tokens');
    tp.fake.configure({ personalAccessTokens: true });
    const { outcome } = await run.link(TP3_SLACK.frank, { login: 'frank', token });
    expect(textOf(outcome)).toContain('Linked to the TeamPass account frank');
    expect(await linkedRow(TP3_SLACK.frank)).toMatchObject({ method: 'token' });
    expect(textOf(await run.home(TP3_SLACK.frank))).toContain('(a personal access token');
    expect(labelsOf((await run.ask(TP3_SLACK.frank, 'find prod')).answer)).toEqual(['prod-db']);
    expect(tp.fake.signIns('frank')).toBe(1);
    expect(JSON.stringify(await linkedRow(TP3_SLACK.frank))).not.toContain(token);
  });
});

describe('unlinking', () => {
  it('unlinks from the App Home: forgets the credentials and signs the session out', async () => {
    await linkAs('carol', TP3_SLACK.carol);
    // Carol may read no folder at all: she is told so, like anyone whose search finds nothing.
    expect((await run.ask(TP3_SLACK.carol, 'find anything')).answer.text).toContain(
      'No item you can read matches',
    );
    const live = tp.fake.sessions('carol').filter((session) => session.revokedAt === undefined);
    expect(live).toHaveLength(1);
    const published = slack.apiCalls('views.publish').length;
    await run.clickHome(TP3_SLACK.carol, 'vault_unlink');
    await slack.waitFor(() =>
      slack
        .apiCalls('views.publish')
        .slice(published)
        .find((call) => call.body.user_id === TP3_SLACK.carol),
    );
    expect(await linkedRow(TP3_SLACK.carol)).toBeUndefined();
    expect(liveSessions('carol')).toEqual([]);
    expect((await run.ask(TP3_SLACK.carol, 'find anything')).answer.text).toContain(
      'Link your TeamPass account',
    );
    expect(
      (await bot.auditRecords()).filter((record) => record.event === 'account_unlinked').at(-1),
    ).toMatchObject({
      slackUser: TP3_SLACK.carol,
      login: 'carol',
      outcome: 'by_user',
    });
  });

  it('lets a link admin unlink someone (audited, they are told), and nobody else', async () => {
    if (!(await linkedRow(TP3_SLACK.bob))) await linkAs('bob', TP3_SLACK.bob);
    const refused = await run.ask(TP3_SLACK.carol, `unlink ${TP3_SLACK.bob}`);
    expect(refused.answer.text).toContain('Only the bot’s link admins');
    expect(await linkedRow(TP3_SLACK.bob)).toBeDefined();
    const garbage = await postSlash('unlink Some-Password-Typed-Here', TP3_SLACK.admin);
    expect(JSON.stringify(garbage.json)).not.toContain('Some-Password-Typed-Here');
    const before = slack.apiCalls('chat.postMessage').length;
    const done = await run.ask(TP3_SLACK.admin, `unlink <@${TP3_SLACK.bob}|bob>`);
    expect(done.answer.text).toContain(`Unlinked the TeamPass account bob of ${TP3_SLACK.bob}`);
    expect(await linkedRow(TP3_SLACK.bob)).toBeUndefined();
    const [told] = await slack.waitFor(() => {
      const dms = slack
        .apiCalls('chat.postMessage')
        .slice(before)
        .filter((call) => call.body.channel === TP3_SLACK.bob);
      return dms.length > 0 && dms;
    });
    expect(String(told?.body.text)).toContain(`Slack user ${TP3_SLACK.admin}`);
    expect(liveSessions('bob')).toEqual([]);
    const audit = await bot.auditRecords();
    expect(audit.find((record) => record.event === 'account_unlink_refused')).toMatchObject({
      slackUser: TP3_SLACK.bob,
      decidedBy: TP3_SLACK.carol,
      outcome: 'not_admin',
    });
    expect(audit.filter((record) => record.event === 'account_unlinked').at(-1)).toMatchObject({
      slackUser: TP3_SLACK.bob,
      login: 'bob',
      decidedBy: TP3_SLACK.admin,
      outcome: 'by_admin',
    });
  });

  it('stops signing in with credentials TeamPass refuses, until the person links again', async () => {
    await linkAs('bob', TP3_SLACK.bob);
    tp.fake.updateUser('bob', { password: 'Bob-New-Pw-After-Change-1' });
    tp.fake.revokeSessions('bob');
    const refused = await run.ask(TP3_SLACK.bob, 'find prod');
    expect(refused.answer.text).toContain('TeamPass refused your linked account');
    expect(buttonsOf(refused.answer).map((button) => button.action_id)).toEqual(['vault_link_open']);
    const failedSignIns = tp.fake.requests.filter(
      (request) => request.url.includes('/authorize') && request.status === 401,
    ).length;
    const again = await run.ask(TP3_SLACK.bob, 'find prod');
    expect(again.answer.text).toContain('TeamPass refused your linked account');
    // No sign-in tried for the second command: each failure counts towards TeamPass's lockouts.
    expect(
      tp.fake.requests.filter((request) => request.url.includes('/authorize') && request.status === 401)
        .length,
    ).toBe(failedSignIns);
    tp.fake.updateUser('bob', { password: TP3_USERS.bob.password });
    await linkAs('bob', TP3_SLACK.bob);
    expect(labelsOf((await run.ask(TP3_SLACK.bob, 'find prod')).answer)).toEqual(['prod-db']);
    expect(
      (await bot.auditRecords()).some((record) => record.event === 'account_link_refused_by_vault'),
    ).toBe(true);
  });
});

describe('what never leaks', () => {
  it('keeps every linked password, key, personal access token and session token out of logs, Slack, the audit and the store', async () => {
    const secrets = [
      ...Object.values(TP3_USERS).flatMap((user) => [user.password, user.apiKey]),
      'Bob-New-Pw-After-Change-1',
      ...tokensMade,
      ...tp.fake.tokens(),
    ];
    expect(tp.fake.tokens().length).toBeGreaterThan(5);
    const logs = bot.logLines.join('\n');
    const audit = JSON.stringify(await bot.auditRecords());
    const tables = await bot.bot.deps.db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`,
    );
    let store = '';
    for (const { table_name } of tables)
      store += JSON.stringify(await bot.bot.deps.db.query(`SELECT * FROM "${table_name}"`));
    // Sealed in the sealer's format (base64url of version 2, flags 0: "Ag…").
    expect(store).toMatch(/"credentials":"Ag[A-Za-z0-9_-]+"/);
    for (const secret of secrets) {
      expect(logs).not.toContain(secret);
      expect(audit).not.toContain(secret);
      expect(store).not.toContain(secret);
      for (const call of slack.calls) expect(call.raw).not.toContain(secret);
    }
  });
});

describe('payload bounds on the link form', () => {
  it('acks a link form whose values are longer than Slack allows, doing nothing', async () => {
    const res = await postPayload(bot.base, {
      type: 'view_submission',
      user: { id: TP3_SLACK.carol, team_id: 'T1' },
      team: { id: 'T1' },
      api_app_id: 'A1',
      token: 'legacy-verification-token',
      view: {
        id: 'V1',
        type: 'modal',
        callback_id: 'vault_link_modal',
        state: {
          values: { link_password: { value: { type: 'plain_text_input', value: 'x'.repeat(5000) } } },
        },
      },
    });
    expect(res.status).toBe(200);
    expect(bot.logLines.join('\n')).toContain('longer than Slack allows');
  });
});
