import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { click, nextId, SLACK_USERS, slash, startBot, type TestBot } from './support/bot.ts';
import { type FakeSlack, startFakeSlack } from './support/fake-slack.ts';
import { buttonsOf, labelsOf, type Message } from './support/messages.ts';
import { BULK_ITEMS, HOSTILE_LABEL, type SeededVault, startSeededVault } from './support/seed.ts';

let seeded: SeededVault;
let slack: FakeSlack;

beforeAll(async () => {
  [seeded, slack] = await Promise.all([startSeededVault(), startFakeSlack()]);
});
afterAll(async () => {
  await slack?.close();
  await seeded?.vault.close();
});

/** Runs a slash command and waits for the answer posted to its response_url. */
async function ask(bot: TestBot, user: string, text: string) {
  const id = nextId();
  const ack = await slash(bot.base, { text, user_id: user, response_url: slack.responseUrl(id) });
  expect(ack.status).toBe(200);
  const answer = await slack.firstResponse(id, 10_000);
  return { ack, answer: answer as Message, id };
}

/** Clicks a button and waits for the n-th post to the click's response_url. */
async function press(bot: TestBot, user: string, actionId: string, value: string, posts = 1) {
  const id = nextId('c');
  const res = await click(bot.base, user, actionId, value, slack.responseUrl(id));
  expect(res.status).toBe(200);
  const answers = await slack.waitFor(
    () => slack.responses(id).length >= posts && slack.responses(id),
    10_000,
  );
  return { answers: answers as Message[], id };
}

describe('with a real vault', () => {
  let bot: TestBot;

  beforeAll(async () => {
    bot = await startBot({
      VAULT_URL: seeded.vault.url,
      VAULT_API_KEY: seeded.vault.adminKey,
      SLACK_API_URL: slack.apiUrl,
      REVEAL_SECONDS: '1',
      REVEAL_RATE_LIMIT: '100',
      COMMAND_RATE_LIMIT: '1000',
      AUDIT_CHANNEL: 'CAUDIT',
    });
  });
  afterAll(async () => {
    await bot?.stop();
  });

  it('acks find at once and then answers with only the items each user may read', async () => {
    const alice = await ask(bot, SLACK_USERS.alice, 'find github');
    expect(alice.ack.json).toMatchObject({ response_type: 'ephemeral' });
    expect(String(alice.ack.json?.text)).toContain('Searching the vault for “github”');
    expect(alice.ack.ms).toBeLessThan(2500);
    expect(alice.answer).toMatchObject({ response_type: 'ephemeral' });
    expect(labelsOf(alice.answer)).toEqual(['github-actions', 'github-deploy']);

    const bob = await ask(bot, SLACK_USERS.bob, 'find github');
    expect(labelsOf(bob.answer)).toEqual(['github-ops-token']);

    const carol = await ask(bot, SLACK_USERS.carol, 'find github');
    expect(carol.answer.text).toContain('No item you can read matches “github”');
  });

  it('shows the label, folder path and login with show login, reveal and a safe open-URL button', async () => {
    const { answer } = await ask(bot, SLACK_USERS.alice, 'find github-deploy');
    const section = answer.blocks?.find((block) => block.text?.text.startsWith('github-deploy  ·'));
    expect(section?.text?.text).toContain('Dev');
    expect(section?.text?.text).toContain('Login: deploy-bot');
    expect(section?.text?.type).toBe('plain_text');
    const ids = buttonsOf(answer).map((button) => button.action_id);
    expect(ids).toEqual(['vault_show_login', 'vault_reveal', 'vault_open_url']);
    expect(buttonsOf(answer).find((button) => button.action_id === 'vault_open_url')?.url).toBe(
      'https://github.com/acme',
    );
    for (const password of Object.values(seeded.passwords))
      expect(JSON.stringify(answer)).not.toContain(password);
  });

  it('offers no open-URL button for a javascript: URL', async () => {
    const { answer } = await ask(bot, SLACK_USERS.alice, 'find github-actions');
    expect(buttonsOf(answer).map((button) => button.action_id)).toEqual(['vault_show_login', 'vault_reveal']);
  });

  it('lists the shared folder to both users that have a right on it', async () => {
    // "wifi" also finds "Wi-Fi" (the core's search joins the parts of a word): the shared item is there for both.
    expect(labelsOf((await ask(bot, SLACK_USERS.alice, 'find wifi')).answer)).toContain('office-wifi');
    expect(labelsOf((await ask(bot, SLACK_USERS.bob, 'find wifi')).answer)).toContain('office-wifi');
  });

  it('gets an item by id only for a user who may read it', async () => {
    const id = seeded.items['prod-db'];
    const bob = await ask(bot, SLACK_USERS.bob, `get ${id}`);
    expect(labelsOf(bob.answer)).toEqual(['prod-db']);
    const alice = await ask(bot, SLACK_USERS.alice, `get ${id}`);
    expect(alice.answer.text).toContain(`No item you can read has the id or label “${id}”`);
    const secret = await ask(bot, SLACK_USERS.alice, `get ${seeded.items['root-ca']}`);
    expect(labelsOf(secret.answer)).toEqual([]);
    // An id the vault does not have is answered as one the person may not read.
    const missing = await ask(bot, SLACK_USERS.alice, 'get 987654');
    expect(missing.answer.text).toBe(alice.answer.text?.replace(String(id), '987654'));
  });

  it('gets an item by exact label, ignoring case and accents like the vault does', async () => {
    expect(labelsOf((await ask(bot, SLACK_USERS.bob, 'get PROD-DB')).answer)).toEqual(['prod-db']);
    expect(labelsOf((await ask(bot, SLACK_USERS.alice, 'get cafe wi-fi ☕')).answer)).toEqual([
      'Café Wi-Fi ☕',
    ]);
    expect((await ask(bot, SLACK_USERS.alice, 'get prod-db')).answer.text).toContain('No item you can read');
  });

  it('lists the candidates with their paths when a label is not exact', async () => {
    const { answer } = await ask(bot, SLACK_USERS.alice, 'get github');
    expect(answer.text).toContain('No item you can read is labelled exactly “github”; these contain it: 2');
    expect(labelsOf(answer)).toEqual(['github-actions', 'github-deploy']);
    expect(answer.blocks?.filter((block) => block.text?.text.includes('\nDev\n'))).toHaveLength(2);
  });

  it('matches text the vault search cannot take (spaces, unicode, slashes) over the user’s own items', async () => {
    expect(labelsOf((await ask(bot, SLACK_USERS.alice, 'find café wi')).answer)).toEqual(['Café Wi-Fi ☕']);
    expect(labelsOf((await ask(bot, SLACK_USERS.bob, 'find café wi')).answer)).toEqual([]);
    const odd = await ask(bot, SLACK_USERS.alice, 'find a/b?c#d%2F..\\');
    expect(odd.answer.text).toContain('No item you can read matches “a/b?c#d%2F..\\”');
  });

  it("finds by words in any order in the login, URL and folder, label words first (the core's search)", async () => {
    // prod-db: login postgres, URL https://db.internal.example; nothing of it in its label.
    expect(labelsOf((await ask(bot, SLACK_USERS.bob, 'find internal POSTGRES')).answer)).toEqual(['prod-db']);
    // "ops" is in github-ops-token's label and in prod-db's folder, Ops: the label first.
    expect(labelsOf((await ask(bot, SLACK_USERS.bob, 'find ops')).answer)).toEqual([
      'github-ops-token',
      'prod-db',
    ]);
    expect(labelsOf((await ask(bot, SLACK_USERS.alice, 'find internal postgres')).answer)).toEqual([]);
  });

  it('escapes hostile labels, logins and queries: no broadcast, no mention, no injected link', async () => {
    const { ack, answer } = await ask(bot, SLACK_USERS.alice, 'find evil <!here>');
    const all = JSON.stringify(answer) + JSON.stringify(ack.json);
    expect(all).not.toMatch(/<!here>|<!channel>|<https:\/\/evil|<@U999>|@here|@channel/);
    const section = answer.blocks?.find((block) => block.text?.text.startsWith('evil'));
    expect(section?.text?.text).toContain(
      'evil &lt;!here&gt; &lt;https://evil.example|click&gt; &amp; @\u2060channel',
    );
    expect(section?.text?.text).toContain('Login: &lt;@U999&gt; @\u2060here');
    for (const block of answer.blocks ?? [])
      if (block.text?.type === 'mrkdwn') expect(block.text.verbatim).toBe(true);
    expect(labelsOf(answer)).toHaveLength(1);
    expect(seeded.items[HOSTILE_LABEL]).toBeGreaterThan(0);
  });

  it('paginates past the 50-block limit, each page re-checked and replaced in place', async () => {
    const first = await ask(bot, SLACK_USERS.alice, 'find bulk');
    expect(first.answer.text).toContain(`: ${BULK_ITEMS} (page 1 of 3)`);
    expect(first.answer.blocks?.length).toBeLessThanOrEqual(50);
    const seen = new Set(labelsOf(first.answer));
    expect(seen.size).toBe(20);
    let page = first.answer;
    for (const expected of [2, 3]) {
      const next = buttonsOf(page).find((button) => button.action_id === 'vault_page_next');
      expect(next?.value).toBeDefined();
      const { answers } = await press(bot, SLACK_USERS.alice, 'vault_page_next', next?.value ?? '');
      page = answers[0] as Message;
      expect(page).toMatchObject({ replace_original: true, response_type: 'ephemeral' });
      expect(page.text).toContain(`(page ${expected} of 3)`);
      for (const label of labelsOf(page)) seen.add(label);
    }
    expect(seen.size).toBe(BULK_ITEMS);
    expect(buttonsOf(page).map((button) => button.action_id)).toContain('vault_page_prev');
    expect(buttonsOf(page).map((button) => button.action_id)).not.toContain('vault_page_next');
  });

  it('refuses a forged page button', async () => {
    const { answers } = await press(
      bot,
      SLACK_USERS.alice,
      'vault_page_next',
      '{"kind":"find","q":"x","p":-1}',
    );
    expect(answers[0]?.text).toContain('out of date');
  });

  it('reveals a password to the clicker only, then replaces it with a redacted version after the delay', async () => {
    const started = Date.now();
    const { answers } = await press(
      bot,
      SLACK_USERS.alice,
      'vault_reveal',
      String(seeded.items['github-deploy']),
      2,
    );
    const [shown, hidden] = answers as [Message, Message];
    const password = seeded.passwords['github-deploy'] ?? '';
    expect(shown).toMatchObject({ response_type: 'ephemeral', replace_original: true });
    expect(
      shown.blocks?.some((block) => block.text?.type === 'plain_text' && block.text.text === password),
    ).toBe(true);
    expect(shown.text).not.toContain(password);
    expect(hidden).toMatchObject({ response_type: 'ephemeral', replace_original: true });
    expect(JSON.stringify(hidden)).not.toContain(password);
    expect(hidden.text).toContain('hidden again');
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    const audit = await bot.auditRecords();
    expect(
      audit.find((record) => record.event === 'reveal' && record.itemId === seeded.items['github-deploy']),
    ).toMatchObject({
      slackUser: SLACK_USERS.alice,
      login: 'alice',
      label: 'github-deploy',
      channel: 'C1',
      slackTeam: 'T1',
    });
    // The audit channel's posts are queued and batched: they follow the answer, not precede it.
    await slack.waitFor(
      () =>
        slack
          .apiCalls('chat.postMessage')
          .some(
            (call) =>
              call.body.channel === 'CAUDIT' &&
              /reveal: .*github-deploy.*\(shown\)/.test(String(call.body.text)),
          ),
      10_000,
    );
    const posts = slack.apiCalls('chat.postMessage').filter((call) => call.body.channel === 'CAUDIT');
    for (const call of posts) {
      expect(call.raw).not.toContain(password);
      expect(String(call.body.text)).not.toContain('<@');
      expect(call.body.unfurl_links).toBe('false');
    }
  });

  it('refuses to reveal an item the clicker may not read, even with a forged button', async () => {
    const { answers } = await press(bot, SLACK_USERS.alice, 'vault_reveal', String(seeded.items['prod-db']));
    expect(answers[0]?.text).toContain('You cannot read this item');
    expect(JSON.stringify(answers)).not.toContain(seeded.passwords['prod-db']);
    const audit = await bot.auditRecords();
    expect(audit.at(-1)).toMatchObject({
      event: 'reveal_denied',
      login: 'alice',
      itemId: seeded.items['prod-db'],
    });
  });

  it('checks rights again at the click: a right removed after find denies the reveal', async () => {
    const { answer } = await ask(bot, SLACK_USERS.bob, 'find office');
    expect(labelsOf(answer)).toEqual(['office-wifi']);
    await seeded.vault.admin.revoke('ops', seeded.folders.shared);
    try {
      const { answers } = await press(
        bot,
        SLACK_USERS.bob,
        'vault_reveal',
        String(seeded.items['office-wifi']),
      );
      expect(answers[0]?.text).toContain('You cannot read this item');
      expect(JSON.stringify(answers)).not.toContain(seeded.passwords['office-wifi']);
    } finally {
      await seeded.vault.admin.grant('ops', seeded.folders.shared, 'R');
    }
  });

  it.each(['abc', '-1', '1e3', '99999999999999999999', '', '<!here>'])(
    'refuses a reveal button carrying %j',
    async (value) => {
      const { answers } = await press(bot, SLACK_USERS.alice, 'vault_reveal', value);
      expect(answers[0]?.text).toContain('You cannot read this item');
      expect(answers[0]?.text).not.toContain('<!here>');
    },
  );

  it.each(['🔑🔑', '\u202Eevil', 'ｇｉｔｈｕｂ', "o'brien:x_y-z", '%00', '..', '*_~`'])(
    'answers the query %j without error',
    async (query) => {
      const { answer } = await ask(bot, SLACK_USERS.alice, `find ${query}`);
      expect(answer.response_type).toBe('ephemeral');
      expect(answer.text).not.toMatch(/went wrong|could not understand/);
    },
  );

  it('shows the login in plain text to copy', async () => {
    const { answers } = await press(
      bot,
      SLACK_USERS.alice,
      'vault_show_login',
      String(seeded.items['staging-db']),
    );
    expect(answers[0]).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    expect(
      answers[0]?.blocks?.some((block) => block.text?.type === 'plain_text' && block.text.text === 'stage'),
    ).toBe(true);
  });

  it('records every find as a JSON line without any password', async () => {
    const audit = await bot.auditRecords();
    expect(
      audit.find((record) => record.event === 'find' && record.query === 'github' && record.login === 'bob'),
    ).toMatchObject({
      slackUser: SLACK_USERS.bob,
      channel: 'C1',
      results: 1,
    });
    for (const record of audit) expect(typeof record.time).toBe('string');
    const text = JSON.stringify(audit);
    for (const password of Object.values(seeded.passwords)) expect(text).not.toContain(password);
  });

  it('posts nothing in the channel where a command was typed: only ephemeral answers and the audit channel', () => {
    for (const call of slack.apiCalls('chat.postMessage')) expect(call.body.channel).toBe('CAUDIT');
    expect(slack.apiCalls('chat.postEphemeral')).toEqual([]);
    for (const call of slack.calls.filter((c) => c.path.startsWith('/response/'))) {
      expect(call.body.response_type).toBe('ephemeral');
      expect(call.body.unfurl_links).toBe(false);
    }
  });

  it('never writes the API key or a password to a log line or any Slack message but the reveal', () => {
    const key = seeded.vault.adminKey;
    const logs = bot.logLines.join('\n');
    expect(logs).not.toContain(key);
    for (const password of Object.values(seeded.passwords)) expect(logs).not.toContain(password);
    for (const call of slack.calls) {
      expect(call.raw).not.toContain(key);
      expect(call.raw).not.toContain(encodeURIComponent(key));
      for (const password of Object.values(seeded.passwords)) {
        if (!call.raw.includes(password)) continue;
        expect(call.path.startsWith('/response/')).toBe(true);
        expect(String(call.body.text)).toMatch(/^Password of/);
      }
    }
  });
});

describe('the reveal rate limit', () => {
  it('refuses reveals past the per-user limit and audits the refusal', async () => {
    const bot = await startBot({
      VAULT_URL: seeded.vault.url,
      VAULT_API_KEY: seeded.vault.adminKey,
      SLACK_API_URL: slack.apiUrl,
      REVEAL_RATE_LIMIT: '2',
      REVEAL_RATE_WINDOW_SECONDS: '600',
    });
    try {
      const id = String(seeded.items['prod-db']);
      for (let i = 0; i < 2; i += 1) {
        const { answers } = await press(bot, SLACK_USERS.bob, 'vault_reveal', id);
        expect(answers[0]?.text).toMatch(/^Password of/);
      }
      const { answers } = await press(bot, SLACK_USERS.bob, 'vault_reveal', id);
      expect(answers[0]?.text).toMatch(/Please wait \d+ s/);
      expect(JSON.stringify(answers)).not.toContain(seeded.passwords['prod-db']);
      const other = await press(bot, SLACK_USERS.alice, 'vault_reveal', String(seeded.items['staging-db']));
      expect(other.answers[0]?.text).toMatch(/^Password of/);
      expect(
        (await bot.auditRecords()).some(
          (record) => record.event === 'reveal_rate_limited' && record.login === 'bob',
        ),
      ).toBe(true);
    } finally {
      await bot.stop();
    }
  });

  it('hides every password still on screen when the bot stops', async () => {
    const bot = await startBot({
      VAULT_URL: seeded.vault.url,
      VAULT_API_KEY: seeded.vault.adminKey,
      SLACK_API_URL: slack.apiUrl,
      REVEAL_SECONDS: '600',
    });
    const { id } = await press(bot, SLACK_USERS.alice, 'vault_reveal', String(seeded.items['staging-db']));
    await slack.waitFor(() => slack.responses(id).length === 1);
    expect(await bot.bot.deps.redactions.pending()).toBe(1);
    await bot.stop();
    const [, hidden] = slack.responses(id);
    expect(hidden?.text).toContain('hidden again');
  });
});

describe('reveal in a modal', () => {
  it('opens a modal for the clicker only and replaces it with a redacted view after the delay', async () => {
    const bot = await startBot({
      VAULT_URL: seeded.vault.url,
      VAULT_API_KEY: seeded.vault.adminKey,
      SLACK_API_URL: slack.apiUrl,
      REVEAL_MODE: 'modal',
      REVEAL_SECONDS: '1',
    });
    try {
      const password = seeded.passwords['staging-db'] ?? '';
      const id = nextId('c');
      const opensBefore = slack.apiCalls('views.open').length;
      await click(
        bot.base,
        SLACK_USERS.alice,
        'vault_reveal',
        String(seeded.items['staging-db']),
        slack.responseUrl(id),
      );
      const open = await slack.waitFor(() => slack.apiCalls('views.open')[opensBefore]);
      expect(open.body.trigger_id).toBe('trigger-2');
      // The modal opens without the password; it comes in an update once the redaction is saved.
      expect(String(open.body.view)).not.toContain(password);
      const shown = await slack.waitFor(() =>
        slack.apiCalls('views.update').find((call) => String(call.body.view).includes(password)),
      );
      const update = await slack.waitFor(
        () =>
          slack
            .apiCalls('views.update')
            .find((call) => call !== shown && call.body.view_id === shown.body.view_id),
        5000,
      );
      expect(String(update.body.view)).not.toContain(password);
      expect(String(update.body.view)).toContain('hidden again');
      expect(JSON.stringify(slack.responses(id))).not.toContain(password);
      const denied = nextId('c');
      await click(
        bot.base,
        SLACK_USERS.alice,
        'vault_reveal',
        String(seeded.items['prod-db']),
        slack.responseUrl(denied),
      );
      const refusal = await slack.firstResponse(denied);
      expect(String(refusal?.text)).toContain('You cannot read this item');
      expect(slack.apiCalls('views.open')).toHaveLength(opensBefore + 1);
    } finally {
      await bot.stop();
    }
  });
});

describe('vault errors', () => {
  it('tells the user the key was refused, never showing it', async () => {
    const wrongKey = 'wrong-key-0000-1111-2222-3333-4444';
    const bot = await startBot({
      VAULT_URL: seeded.vault.url,
      VAULT_API_KEY: wrongKey,
      SLACK_API_URL: slack.apiUrl,
    });
    try {
      const { answer } = await ask(bot, SLACK_USERS.alice, 'find github');
      expect(answer.text).toContain('refused the bot’s API key');
      expect(JSON.stringify(slack.calls)).not.toContain(wrongKey);
      expect(bot.logLines.join('\n')).not.toContain(wrongKey);
    } finally {
      await bot.stop();
    }
  });
});

describe('a revoked bot key', () => {
  it('tells the user the key was revoked and what the admin must do, never showing it', async () => {
    const revokedKey = await seeded.vault.admin.createKey({ label: 'bot-revoked' });
    await seeded.vault.admin.revokeKey('bot-revoked');
    const bot = await startBot({
      VAULT_URL: seeded.vault.url,
      VAULT_API_KEY: revokedKey,
      SLACK_API_URL: slack.apiUrl,
    });
    try {
      const { answer } = await ask(bot, SLACK_USERS.alice, 'find github');
      expect(answer.text).toContain('The vault revoked the bot’s API key');
      expect(answer.text).toContain('needs a new key');
      expect(JSON.stringify(slack.calls)).not.toContain(revokedKey);
      expect(bot.logLines.join('\n')).not.toContain(revokedKey);
    } finally {
      await bot.stop();
    }
  });
});

describe('a mapping to a login the vault does not know', () => {
  it('tells the person to get the link fixed and shows nothing', async () => {
    const bot = await startBot(
      { VAULT_URL: seeded.vault.url, VAULT_API_KEY: seeded.vault.adminKey, SLACK_API_URL: slack.apiUrl },
      { UGHOST: 'ghost' },
    );
    try {
      const { answer } = await ask(bot, 'UGHOST', 'find github');
      expect(answer.text).toContain('linked to a vault user the vault does not know');
      const { answers } = await press(bot, 'UGHOST', 'vault_reveal', String(seeded.items['github-deploy']));
      expect(answers[0]?.text).toContain('linked to a vault user the vault does not know');
    } finally {
      await bot.stop();
    }
  });
});

describe('identity by Slack profile email', () => {
  it('maps by confirmed profile email through users.info and never falls back', async () => {
    const directory = join(tmpdir(), `directory-${process.pid}.csv`);
    await writeFile(
      directory,
      'login,email\nalice,Alice@Example.com\nbob,bob@example.com\nbob2,bob@example.com\n',
    );
    slack.profiles.set('UALICE', { email: 'alice@example.com' });
    slack.profiles.set('UEVE', { email: 'eve@example.com' });
    slack.profiles.set('UBOB', { email: 'bob@example.com' });
    slack.profiles.set('UFAKE', { email: 'alice@example.com', is_email_confirmed: false });
    const bot = await startBot({
      VAULT_URL: seeded.vault.url,
      VAULT_API_KEY: seeded.vault.adminKey,
      SLACK_API_URL: slack.apiUrl,
      IDENTITY_MODE: 'email',
      VAULT_USER_DIRECTORY_FILE: directory,
    });
    try {
      expect(labelsOf((await ask(bot, 'UALICE', 'find github')).answer)).toEqual([
        'github-actions',
        'github-deploy',
      ]);
      expect(slack.apiCalls('users.info').some((call) => call.body.user === 'UALICE')).toBe(true);
      expect((await ask(bot, 'UEVE', 'find github')).answer.text).toContain('not linked to a vault user');
      expect((await ask(bot, 'UBOB', 'find github')).answer.text).toContain('more than one vault user');
      expect((await ask(bot, 'UFAKE', 'find github')).answer.text).toContain('no confirmed email');
      expect((await ask(bot, 'UGHOST', 'find github')).answer.text).toContain(
        'could not read your Slack profile',
      );
    } finally {
      await bot.stop();
    }
  });
});

describe('rights in the core’s words', () => {
  it('shows an NE user “add and delete, no edit” for an item of their NE folder, from the core’s table', async () => {
    await seeded.vault.admin.createUser({ login: 'erin' });
    await seeded.vault.admin.createRole({ name: 'dropbox' });
    await seeded.vault.admin.assignRole('erin', 'dropbox');
    const { id: folderId } = await seeded.admin.folders.create({
      title: 'Drop',
      complexityLevel: 0,
      parentId: 0,
    });
    await seeded.vault.admin.grant('dropbox', folderId, 'NE');
    await seeded.admin.items.create({ label: 'drop-box', password: 'Drop-Pw-1', folderId });
    const bot = await startBot(
      { VAULT_URL: seeded.vault.url, VAULT_API_KEY: seeded.vault.adminKey, SLACK_API_URL: slack.apiUrl },
      { UERIN: 'erin' },
    );
    try {
      const { answer } = await ask(bot, 'UERIN', 'find drop-box');
      expect(labelsOf(answer)).toEqual(['drop-box']);
      const section = answer.blocks?.find((block) => block.text?.text.startsWith('drop-box'));
      expect(section?.text?.text).toContain('Your access: add and delete, no edit');
    } finally {
      await bot.stop();
    }
  });
});
