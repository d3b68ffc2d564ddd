import { randomBytes } from 'node:crypto';
import { startTeamPass3Fake, type TeamPass3Fake } from '@vaultline/protocol/testing';
import { clickPayload, nextId, postEvent, postPayload, SLACK_USERS, slash, type TestBot } from './bot.ts';
import type { FakeSlack, RecordedCall } from './fake-slack.ts';
import type { Message } from './messages.ts';

/** A label full of what TeamPass escapes (`&`, `<`, `>`, quotes) and emoji. */
export const ENTITY_LABEL = 'Tom & Jerry <db> "quoted" it\'s ☕ 🚀';

/** A label that must reach Slack only escaped. */
export const HOSTILE_LABEL = 'evil <!here> <https://evil.example|click> & @channel';

/** The people of the fake TeamPass 3 and what they sign in with. Passwords and keys are long and distinct, for leak scans. */
export const TP3_USERS = {
  alice: { login: 'alice', password: 'Alice-Pw-7f3e9c!Quokka', apiKey: 'alice-api-key-5d1b8a2e4c6f' },
  bob: { login: 'bob', password: 'Bob-Pw-2a8d4f!Wombat', apiKey: 'bob-api-key-9e7c5a3b1d2f' },
  carol: { login: 'carol', password: 'Carol-Pw-6b4e2c!Numbat', apiKey: 'carol-api-key-3f5a7c9e1b0d' },
  /** Her API access is switched off: TeamPass refuses her sign-in like a wrong password. */
  dave: { login: 'dave', password: 'Dave-Pw-1c3e5a!Dingo', apiKey: 'dave-api-key-7b9d1f3a5c8e' },
  /** His API "read" permission is off: he signs in, and may read nothing. */
  erin: { login: 'erin', password: 'Erin-Pw-8d6b4f!Possum', apiKey: 'erin-api-key-2e4c6a8b0d1f' },
  /** Links with a personal access token. */
  frank: { login: 'frank', password: 'Frank-Pw-4a2c6e!Bilby', apiKey: 'frank-api-key-6c8e0a2b4d7f' },
} as const;

/** Slack users of the TeamPass 3 tests beyond the shared ones. */
export const TP3_SLACK = {
  ...SLACK_USERS,
  dave: 'UDAVE',
  erin: 'UERIN',
  frank: 'UFRANK',
  admin: 'UADMIN',
} as const;

/** The seeded fake: folders by title, items by label, and each item's password. */
export interface SeededTeamPass3 {
  fake: TeamPass3Fake;
  folders: { dev: number; ops: number; shared: number; secret: number };
  items: Record<string, number>;
  passwords: Record<string, string>;
}

/** How many items the Dev folder holds in bulk (more than a page). */
export const TP3_BULK = 30;

/**
 * Starts the TeamPass 3 fake, seeded: alice (role Devs: W on Dev, R on Shared), bob and frank
 * (role Ops: W on Ops, R on Shared), carol (no role: nothing), dave (API access off), erin (API
 * read permission off, role Devs). Secret is nobody's.
 *
 * @returns The fake and what is in it.
 */
export async function startSeededTeamPass3(): Promise<SeededTeamPass3> {
  const passwords: Record<string, string> = {};
  const item = (label: string, folder: string, extra: { login?: string; url?: string } = {}) => {
    const password = `Item-${randomBytes(6).toString('hex')}-Pw`;
    passwords[label] = password;
    return { label, folder, password, ...extra };
  };
  const fake = await startTeamPass3Fake({
    seed: {
      folders: [{ title: 'Dev' }, { title: 'Ops' }, { title: 'Shared' }, { title: 'Secret' }],
      roles: [
        { name: 'Devs', folders: { Dev: 'W', Shared: 'R' } },
        { name: 'Ops', folders: { Ops: 'W', Shared: 'R' } },
      ],
      users: [
        { ...TP3_USERS.alice, roles: ['Devs'] },
        { ...TP3_USERS.bob, roles: ['Ops'] },
        { ...TP3_USERS.carol },
        { ...TP3_USERS.dave, roles: ['Devs'], apiEnabled: false },
        { ...TP3_USERS.erin, roles: ['Devs'], api: { read: false } },
        { ...TP3_USERS.frank, roles: ['Ops'] },
      ],
      items: [
        item('github-deploy', 'Dev', { login: 'deploy-bot', url: 'https://github.com/acme' }),
        item('staging-db', 'Dev', { login: 'stage' }),
        item(ENTITY_LABEL, 'Dev', { login: 'tom & <jerry>' }),
        item(HOSTILE_LABEL, 'Dev', { login: '<@U999> @here' }),
        item('prod-db', 'Ops', { login: 'postgres', url: 'https://db.internal.example' }),
        item('github-ops-token', 'Ops', { login: 'ops-bot' }),
        item('office-wifi', 'Shared', { login: 'office' }),
        item('root-ca', 'Secret', { login: 'ca' }),
        ...Array.from({ length: TP3_BULK }, (_, index) =>
          item(`bulk-${String(index).padStart(3, '0')}`, 'Dev'),
        ),
      ],
    },
  });
  const folderId = (title: string) => fake.folder(title)?.id ?? 0;
  const items: Record<string, number> = {};
  for (const stored of fake.items()) {
    const label = Object.keys(passwords).find((candidate) => passwords[candidate] === stored.password);
    if (label !== undefined) items[label] = stored.id;
  }
  return {
    fake,
    folders: {
      dev: folderId('Dev'),
      ops: folderId('Ops'),
      shared: folderId('Shared'),
      secret: folderId('Secret'),
    },
    items,
    passwords,
  };
}

/** 32 random bytes in base64: a link encryption key. */
export function linkKey(): string {
  return randomBytes(32).toString('base64');
}

/** The tests' side of the bot: signed commands, clicks, the App Home and the link form. */
export interface Driver {
  /** Runs a slash command; resolves with its ack and the first answer to its response_url. */
  ask(user: string, text: string): Promise<{ ack: Message | undefined; answer: Message }>;
  /** Clicks a button of a message; resolves with the first answer to the click's response_url. */
  press(user: string, actionId: string, value: string): Promise<Message>;
  /** Clicks a button of a message, waiting for nothing but the ack. */
  click(user: string, actionId: string, value: string): Promise<void>;
  /** Opens the App Home; resolves with the view published. */
  home(user: string): Promise<Message>;
  /** Clicks a button of the App Home (no response_url). */
  clickHome(user: string, actionId: string): Promise<void>;
  /** Opens the link form from the App Home; resolves with its external_id and the view. */
  openLinkForm(user: string): Promise<{ externalId: string; view: Message }>;
  /**
   * Fills in and sends the link form; resolves with the submission's ack and the view that
   * replaced the form once the bot checked the credentials.
   */
  submitLinkForm(
    user: string,
    externalId: string,
    values: { login?: string; password?: string; apiKey?: string; token?: string },
  ): Promise<{ ack: Message | undefined; outcome: Message | undefined }>;
  /** Opens the form and sends it: the whole link flow. */
  link(
    user: string,
    values: { login?: string; password?: string; apiKey?: string; token?: string },
  ): Promise<{ ack: Message | undefined; outcome: Message | undefined }>;
}

function viewOf(call: RecordedCall | undefined): Message {
  return JSON.parse(String(call?.body.view ?? '{}')) as Message;
}

/**
 * The driver of one bot.
 *
 * @param bot The bot.
 * @param slack The fake Slack it talks to.
 * @returns The driver.
 */
export function driver(bot: TestBot, slack: FakeSlack): Driver {
  const after = (method: string, from: number, probe: (call: RecordedCall) => boolean = () => true) =>
    slack.waitFor(() => slack.apiCalls(method).slice(from).find(probe), 15_000);
  const self: Driver = {
    async ask(user, text) {
      const id = nextId();
      const ack = await slash(bot.base, { text, user_id: user, response_url: slack.responseUrl(id) });
      const answer = await slack.firstResponse(id, 15_000);
      return { ack: ack.json, answer: answer as Message };
    },
    async press(user, actionId, value) {
      const id = nextId('c');
      await postPayload(bot.base, clickPayload(user, actionId, value, slack.responseUrl(id)));
      const answer = await slack.firstResponse(id, 15_000);
      return answer as Message;
    },
    async click(user, actionId, value) {
      await postPayload(bot.base, clickPayload(user, actionId, value, slack.responseUrl(nextId('c'))));
    },
    async home(user) {
      const from = slack.apiCalls('views.publish').length;
      await postEvent(bot.base, { type: 'app_home_opened', user, tab: 'home', channel: `D${user}` });
      return viewOf(await after('views.publish', from, (call) => call.body.user_id === user));
    },
    async clickHome(user, actionId) {
      await postPayload(bot.base, {
        type: 'block_actions',
        user: { id: user, username: user.toLowerCase(), team_id: 'T1' },
        api_app_id: 'A1',
        token: 'legacy-verification-token',
        container: { type: 'view', view_id: `VHOME${user}` },
        trigger_id: `trigger-home-${nextId('t')}`,
        team: { id: 'T1', domain: 'example' },
        view: { id: `VHOME${user}`, type: 'home', callback_id: '', state: { values: {} } },
        actions: [
          { type: 'button', action_id: actionId, block_id: 'link_actions', action_ts: '1700000000.000300' },
        ],
      });
    },
    async openLinkForm(user) {
      const from = slack.apiCalls('views.open').length;
      await self.clickHome(user, 'vault_link_open');
      const view = viewOf(await after('views.open', from));
      return { externalId: String(view.external_id), view };
    },
    async submitLinkForm(user, externalId, values) {
      const from = slack.apiCalls('views.update').length;
      const field = (value: string | undefined) => ({
        value: { type: 'plain_text_input', value: value ?? null },
      });
      const submitted = await postPayload(bot.base, {
        type: 'view_submission',
        user: { id: user, team_id: 'T1' },
        team: { id: 'T1' },
        api_app_id: 'A1',
        token: 'legacy-verification-token',
        trigger_id: 'trigger-link',
        view: {
          id: slack.externalIds.get(externalId) ?? 'VUNKNOWN',
          type: 'modal',
          callback_id: 'vault_link_modal',
          external_id: externalId,
          // What Slack sends of the form's blocks (the bot's own).
          blocks: ['link_login', 'link_password', 'link_api_key', 'link_token'].map((block_id) => ({
            type: 'input',
            block_id,
          })),
          state: {
            values: {
              link_login: field(values.login),
              link_password: field(values.password),
              link_api_key: field(values.apiKey),
              link_token: field(values.token),
            },
          },
        },
      });
      if (submitted.json?.response_action !== 'update') return { ack: submitted.json, outcome: undefined };
      // The "checking" view is the ack; the outcome is the update that follows it.
      const update = await after(
        'views.update',
        from,
        (call) => call.body.external_id === externalId && !String(call.body.view).includes('Checking your'),
      );
      return { ack: submitted.json, outcome: viewOf(update) };
    },
    async link(user, values) {
      const { externalId } = await self.openLinkForm(user);
      return self.submitLinkForm(user, externalId, values);
    },
  };
  return self;
}
