import { createHmac } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPglite } from '@vaultline/store';
import { type Bot, createBot } from '../../src/app.ts';
import { readConfig } from '../../src/env.ts';
import { migrateStore } from '../../src/store/database.ts';

let snapshot: Promise<Blob> | undefined;
/** One migrated, empty store per test process, copied into each bot (PGlite's initdb is slow). */
function storeSnapshot(): Promise<Blob> {
  snapshot ??= (async () => {
    const db = await openPglite();
    try {
      await migrateStore(db);
      return await db.dump();
    } finally {
      await db.close();
    }
  })();
  return snapshot;
}

export const SIGNING_SECRET = 'test-signing-secret-0123456789';
export const BOT_TOKEN = 'xoxb-test-bot-token-4242';
export const APP_TOKEN = 'xapp-test-app-token-4242';

/** The Slack users of the tests and the vault login each maps to. */
export const SLACK_USERS = { alice: 'UALICE', bob: 'UBOB', carol: 'UCAROL', nobody: 'UNOBODY' } as const;

/** A bot under test. */
export interface TestBot {
  readonly bot: Bot;
  /** http://127.0.0.1:<port> in HTTP mode. */
  readonly base: string;
  readonly logLines: string[];
  readonly auditFile: string;
  auditRecords(): Promise<Record<string, unknown>[]>;
  stop(): Promise<void>;
}

/**
 * Starts a real Bolt app configured through the same env parsing as production.
 *
 * @param env Settings on top of the test defaults.
 * @param mapping Slack user id → vault login lines of the mapping file.
 * @returns The running bot.
 */
export async function startBot(
  env: Record<string, string>,
  mapping: Record<string, string> = {
    [SLACK_USERS.alice]: 'alice',
    [SLACK_USERS.bob]: 'bob',
    [SLACK_USERS.carol]: 'carol',
  },
): Promise<TestBot> {
  const dir = await mkdtemp(join(tmpdir(), 'slack-bot-test-'));
  const mapFile = join(dir, 'identity-map.csv');
  await writeFile(
    mapFile,
    `slack_user_id,vault_login\n${Object.entries(mapping)
      .map(([u, l]) => `${u},${l}`)
      .join('\n')}\n`,
  );
  const auditFile = join(dir, 'audit.jsonl');
  const logLines: string[] = [];
  const config = readConfig({
    SLACK_MODE: 'http',
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_APP_TOKEN: APP_TOKEN,
    PORT: '0',
    HOST: '127.0.0.1',
    IDENTITY_MODE: 'map',
    IDENTITY_MAP_FILE: mapFile,
    AUDIT_FILE: auditFile,
    LOG_LEVEL: 'debug',
    VAULT_TIMEOUT_MS: '3000',
    BOT_DATA_DIR: 'memory://',
    // The fake Slack stands in for Slack's hooks host.
    ...(env.SLACK_API_URL ? { SLACK_RESPONSE_URL_ORIGINS: new URL(env.SLACK_API_URL).origin } : {}),
    ...env,
  });
  const bot = await createBot(config, {
    logDestination: { write: (line: string) => void logLines.push(line) },
    storeSnapshot:
      config.store.kind === 'pglite' && config.store.dataDir === 'memory://'
        ? await storeSnapshot()
        : undefined,
  });
  const { port } = await bot.start().catch(async (error: unknown) => {
    await bot.stop();
    throw error;
  });
  return {
    bot,
    base: `http://127.0.0.1:${port}`,
    logLines,
    auditFile,
    async auditRecords() {
      const text = await readFile(auditFile, 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    },
    stop: () => bot.stop(),
  };
}

/**
 * Signs a body as Slack does.
 *
 * @see https://api.slack.com/authentication/verifying-requests-from-slack
 */
export function sign(
  body: string,
  ts = Math.floor(Date.now() / 1000),
  secret = SIGNING_SECRET,
): Record<string, string> {
  const signature = `v0=${createHmac('sha256', secret).update(`v0:${ts}:${body}`).digest('hex')}`;
  return { 'x-slack-signature': signature, 'x-slack-request-timestamp': String(ts) };
}

/** A slash command's form fields. */
export interface SlashFields {
  text: string;
  user_id: string;
  response_url: string;
  channel_id?: string;
  command?: string;
  team_id?: string;
  api_app_id?: string;
}

export function slashBody(fields: SlashFields): string {
  return new URLSearchParams({
    token: 'legacy-verification-token',
    team_id: fields.team_id ?? 'T1',
    team_domain: 'example',
    channel_id: fields.channel_id ?? 'C1',
    channel_name: 'general',
    user_id: fields.user_id,
    user_name: fields.user_id.toLowerCase(),
    command: fields.command ?? '/vault',
    text: fields.text,
    api_app_id: fields.api_app_id ?? 'A1',
    is_enterprise_install: 'false',
    response_url: fields.response_url,
    trigger_id: 'trigger-1',
  }).toString();
}

/**
 * Posts a signed slash command.
 *
 * @returns The HTTP status, the ack body and how long the ack took.
 */
export async function slash(
  base: string,
  fields: SlashFields,
  headers: Record<string, string> | undefined = undefined,
) {
  const body = slashBody(fields);
  const started = performance.now();
  const res = await fetch(`${base}/slack/events`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(headers ?? sign(body)) },
  });
  const text = await res.text();
  const ms = performance.now() - started;
  return {
    status: res.status,
    text,
    json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined,
    ms,
  };
}

/** A block_actions payload for one button click. */
export function clickPayload(
  user: string,
  actionId: string,
  value: string,
  responseUrl: string,
): Record<string, unknown> {
  return {
    type: 'block_actions',
    user: { id: user, username: user.toLowerCase(), team_id: 'T1' },
    api_app_id: 'A1',
    token: 'legacy-verification-token',
    container: { type: 'message', message_ts: '1700000000.000200', channel_id: 'C1', is_ephemeral: true },
    trigger_id: 'trigger-2',
    team: { id: 'T1', domain: 'example' },
    channel: { id: 'C1', name: 'general' },
    response_url: responseUrl,
    actions: [
      {
        type: 'button',
        action_id: actionId,
        block_id: 'b1',
        text: { type: 'plain_text', text: 'x' },
        value,
        action_ts: '1700000000.000300',
      },
    ],
  };
}

/** Posts a signed button click. */
export async function click(
  base: string,
  user: string,
  actionId: string,
  value: string,
  responseUrl: string,
) {
  return postForm(base, clickPayload(user, actionId, value, responseUrl));
}

/** Posts a signed interactive payload; resolves with the HTTP status and the ack body as text. */
async function postForm(base: string, payload: Record<string, unknown>) {
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const res = await fetch(`${base}/slack/events`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...sign(body) },
  });
  return { status: res.status, text: await res.text() };
}

let responseCounter = 0;
/** A fresh response_url id. */
export function nextId(prefix = 'r'): string {
  responseCounter += 1;
  return `${prefix}${responseCounter}`;
}

/** Posts a signed interactive payload (shortcut, view submission, click) as Slack does. */
export async function postPayload(base: string, payload: Record<string, unknown>) {
  const { status, text } = await postForm(base, payload);
  return { status, text, json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

/** Posts a signed Events API callback. */
export async function postEvent(base: string, event: Record<string, unknown>) {
  const body = JSON.stringify({
    token: 'legacy-verification-token',
    team_id: 'T1',
    api_app_id: 'A1',
    type: 'event_callback',
    event_id: `Ev${Date.now()}${Math.random().toString(36).slice(2, 8)}`,
    event_time: Math.floor(Date.now() / 1000),
    event,
  });
  const res = await fetch(`${base}/slack/events`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...sign(body) },
  });
  return { status: res.status, text: await res.text() };
}

/** What a test says about the modal a payload comes from. */
export interface ViewFields {
  /** The view's external_id (the bot sets one on every modal it opens). */
  externalId?: string | undefined;
  privateMetadata?: string | undefined;
}

/** The search modal's submission, as Slack sends it. */
export function viewSubmissionPayload(
  user: string,
  viewId: string,
  text: string,
  fields: ViewFields = {},
): Record<string, unknown> {
  return {
    type: 'view_submission',
    user: { id: user, team_id: 'T1' },
    team: { id: 'T1' },
    api_app_id: 'A1',
    token: 'legacy-verification-token',
    trigger_id: 'trigger-submit',
    view: {
      id: viewId,
      type: 'modal',
      callback_id: 'vault_find_modal',
      ...(fields.externalId === undefined ? {} : { external_id: fields.externalId }),
      private_metadata: fields.privateMetadata ?? '',
      state: { values: { query: { vault_home_search: { type: 'plain_text_input', value: text } } } },
    },
  };
}

/** A button click in a modal (no response_url), as Slack sends it. */
export function viewClickPayload(
  user: string,
  viewId: string,
  actionId: string,
  value: string,
  fields: ViewFields = {},
): Record<string, unknown> {
  return {
    type: 'block_actions',
    user: { id: user, username: user.toLowerCase(), team_id: 'T1' },
    api_app_id: 'A1',
    token: 'legacy-verification-token',
    container: { type: 'view', view_id: viewId },
    trigger_id: 'trigger-view',
    team: { id: 'T1', domain: 'example' },
    view: {
      id: viewId,
      type: 'modal',
      callback_id: '',
      ...(fields.externalId === undefined ? {} : { external_id: fields.externalId }),
      private_metadata: fields.privateMetadata ?? '',
      state: { values: {} },
    },
    actions: [
      {
        type: 'button',
        action_id: actionId,
        block_id: 'b1',
        text: { type: 'plain_text', text: 'x' },
        value,
        action_ts: '1700000000.000300',
      },
    ],
  };
}
