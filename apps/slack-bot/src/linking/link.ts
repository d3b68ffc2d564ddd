import { randomUUID } from 'node:crypto';
import type {
  App,
  BlockAction,
  ButtonAction,
  Middleware,
  SlackCommandMiddlewareArgs,
  SlackViewMiddlewareArgs,
  types,
  ViewSubmitAction,
  webApi,
} from '@slack/bolt';
import { isVaultError } from '@vaultline/protocol';
import { LINK_BUTTON, linkOffer, modalOf, note, plain } from '../blocks.ts';
import { publishHome } from '../bot/home.ts';
import { parseCommandText } from '../command-text.ts';
import { ACTIONS, AUDIT_EVENTS, COMMAND, ENV, LINK_INPUT_MAX } from '../constants.ts';
import type { Deps } from '../deps.ts';
import { friendlyMessage, UNEXPECTED_ERROR_MESSAGE } from '../error-messages.ts';
import { escapeText } from '../escape.ts';
import type { SignInPause } from '../limits.ts';
import { expand } from '../requests/request-access.ts';
import { commandCaller } from '../run-as-user.ts';
import { errorFields } from '../safe-error.ts';
import { accountProblemText } from './account-messages.ts';
import type { AccountIdentity } from './accounts.ts';
import type { LinkCredentials } from './links.ts';

type Block = types.KnownBlock;

/** The input blocks of the link form; each input's action id is {@link INPUT}. */
export const LINK_BLOCKS = {
  login: 'link_login',
  password: 'link_password',
  apiKey: 'link_api_key',
  token: 'link_token',
} as const;
/** The action id of every input of the link form. */
const INPUT = 'value';
/** The title of the link form and the views that replace it. */
const LINK_TITLE = 'Link TeamPass';

/** What the link form asks, by {@link Config.linkCredentials}. */
type Asked = Deps['config']['linkCredentials'];

/** What a person is told when the link form was filled in wrongly: per input block, never a value. */
type FormErrors = Partial<Record<(typeof LINK_BLOCKS)[keyof typeof LINK_BLOCKS], string>>;

/**
 * Reads the link form: a login, and the password with the API key, or a personal access token (as
 * the configuration asks). Nothing read is ever put in an error: errors name what is missing.
 *
 * @param asked What the form asks.
 * @param read The value of an input block ('' when empty).
 * @returns The login and credentials, or the errors to show.
 */
export function parseLinkForm(
  asked: Asked,
  read: (block: string) => string,
): { ok: true; login: string; credentials: LinkCredentials } | { ok: false; errors: FormErrors } {
  const login = read(LINK_BLOCKS.login).trim();
  const password = read(LINK_BLOCKS.password);
  const apiKey = read(LINK_BLOCKS.apiKey).trim();
  const token = read(LINK_BLOCKS.token).trim();
  const errors: FormErrors = {};
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are refused.
  const control = /[\u0000-\u001f\u007f]/;
  if (login === '') errors[LINK_BLOCKS.login] = 'Your TeamPass login, please.';
  else if ([...login].length > LINK_INPUT_MAX.login || control.test(login))
    errors[LINK_BLOCKS.login] =
      `A login of at most ${LINK_INPUT_MAX.login} characters, without control characters.`;
  const byPassword = asked !== 'token' && (password.trim() !== '' || apiKey !== '');
  const byToken = asked !== 'password' && token !== '';
  if (byPassword && byToken)
    errors[LINK_BLOCKS.token] = 'Give either your password and API key, or a token: not both.';
  else if (byToken) {
    if (token.length > LINK_INPUT_MAX.token || /\s/.test(token))
      errors[LINK_BLOCKS.token] = `A token of at most ${LINK_INPUT_MAX.token} characters, without spaces.`;
  } else if (byPassword) {
    if (password.trim() === '') errors[LINK_BLOCKS.password] = 'Your TeamPass password, please.';
    else if (password.length > LINK_INPUT_MAX.password)
      errors[LINK_BLOCKS.password] = `A password of at most ${LINK_INPUT_MAX.password} characters.`;
    if (apiKey === '') errors[LINK_BLOCKS.apiKey] = 'Your personal API key, please.';
    else if (apiKey.length > LINK_INPUT_MAX.apiKey || /\s/.test(apiKey))
      errors[LINK_BLOCKS.apiKey] =
        `An API key of at most ${LINK_INPUT_MAX.apiKey} characters, without spaces.`;
  } else if (asked === 'token') errors[LINK_BLOCKS.token] = 'Your personal access token, please.';
  else
    errors[LINK_BLOCKS.password] =
      asked === 'both'
        ? 'Your password and API key, please (or a personal access token).'
        : 'Your TeamPass password, please.';
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    login,
    credentials: byToken ? { personalAccessToken: token } : { password, apiKey },
  };
}

function input(
  block: string,
  label: string,
  options: { hint?: string; optional?: boolean; max: number; initial?: string | undefined },
): Block {
  return {
    type: 'input',
    block_id: block,
    optional: options.optional ?? false,
    label: plain(label),
    ...(options.hint ? { hint: plain(options.hint) } : {}),
    element: {
      type: 'plain_text_input',
      action_id: INPUT,
      max_length: options.max,
      // Only a login is ever written back into the form: never a password, key or token.
      ...(options.initial ? { initial_value: options.initial } : {}),
    },
  };
}

/**
 * The link form, in a modal only the person sees: their login, and their password with their
 * personal API key, or a personal access token (as the configuration asks).
 *
 * @param asked What to ask for.
 * @param externalId The external_id that ties the modal to the person.
 * @param options A problem to say at the top, and the login to fill in.
 * @returns The modal.
 */
export function linkModal(
  asked: Asked,
  externalId: string,
  options: { problem?: string | undefined; login?: string | undefined } = {},
): types.ModalView {
  const both = asked === 'both';
  const blocks: Block[] = [];
  if (options.problem) blocks.push({ type: 'section', text: plain(options.problem) });
  blocks.push({
    type: 'section',
    text: plain(
      'The bot signs in to TeamPass as you to check what you give here, then keeps it encrypted and acts as you only when you ask it something. TeamPass then decides what you see.',
    ),
  });
  blocks.push(
    input(LINK_BLOCKS.login, 'TeamPass login', {
      max: LINK_INPUT_MAX.login,
      // An input shows its value as plain text: nothing to escape, only the length to bound.
      initial:
        options.login === undefined ? undefined : [...options.login].slice(0, LINK_INPUT_MAX.login).join(''),
    }),
  );
  if (asked !== 'token')
    blocks.push(
      input(LINK_BLOCKS.password, 'Password', { optional: both, max: LINK_INPUT_MAX.password }),
      input(LINK_BLOCKS.apiKey, 'Personal API key', {
        optional: both,
        max: LINK_INPUT_MAX.apiKey,
        hint: 'Shown in TeamPass on your profile page (API).',
      }),
    );
  if (asked !== 'password')
    blocks.push(
      input(LINK_BLOCKS.token, both ? 'Or: personal access token' : 'Personal access token', {
        optional: both,
        max: LINK_INPUT_MAX.token,
        hint: 'Recommended: you can revoke a token in TeamPass without changing your password.',
      }),
    );
  blocks.push({
    type: 'context',
    elements: [
      plain('Slack shows what you type in these boxes as you type it: make sure nobody is looking.'),
    ],
  });
  return {
    type: 'modal',
    callback_id: ACTIONS.linkModal,
    external_id: externalId,
    title: plain(LINK_TITLE),
    submit: plain('Link'),
    close: plain('Cancel'),
    blocks,
  };
}

/** A modal of the link flow that only says something (checking, linked), tied to the person. */
function statusModal(text: string, externalId: string): types.ModalView {
  return { ...modalOf([{ type: 'section', text: plain(text) }], LINK_TITLE), external_id: externalId };
}

/**
 * Tells whether a Slack user may unlink other people's accounts: listed in `LINK_ADMINS` (user
 * groups expanded now).
 *
 * @param deps The bot's parts.
 * @param user The Slack user id.
 * @returns Whether they may.
 */
export async function isLinkAdmin(deps: Deps, user: string): Promise<boolean> {
  if (deps.config.linkAdmins.length === 0) return false;
  return (await expand(deps, deps.config.linkAdmins)).includes(user);
}

/**
 * The App Home's part about the person's link: to whom they are linked and how (with Unlink), or
 * why not (with the button that opens the link form); for link admins, how to unlink someone.
 *
 * @param deps The bot's parts.
 * @param user The Slack user.
 * @param identity Who they are, as far as the bot knows.
 * @returns The blocks.
 */
export async function linkBlocks(deps: Deps, user: string, identity: AccountIdentity): Promise<Block[]> {
  const blocks: Block[] = [];
  const unlink: types.Button = {
    type: 'button',
    action_id: ACTIONS.unlinkSelf,
    style: 'danger',
    text: plain('Unlink'),
    confirm: {
      title: plain('Unlink your account?'),
      text: plain('The bot forgets your TeamPass credentials and signs its session out.'),
      confirm: plain('Unlink'),
      deny: plain('Keep it'),
    },
  };
  const link: types.Button = {
    type: 'button',
    action_id: ACTIONS.linkOpen,
    style: 'primary',
    text: plain(LINK_BUTTON),
  };
  if (identity.ok) {
    const how = identity.link?.method === 'token' ? 'a personal access token' : 'password and API key';
    const since = identity.link ? `, since ${new Date(identity.link.linkedAt).toISOString()}` : '';
    blocks.push(
      {
        type: 'section',
        text: plain(
          `Linked to the TeamPass account ${escapeText(identity.login, 80)} (${how}${since}). You see only what it may read: TeamPass decides.`,
        ),
      },
      { type: 'actions', block_id: 'link_actions', elements: [unlink] },
    );
  } else {
    blocks.push(
      { type: 'section', text: plain(accountProblemText(identity.reason)) },
      {
        type: 'actions',
        block_id: 'link_actions',
        elements: identity.reason === 'unlinked' ? [link] : [link, unlink],
      },
      {
        type: 'context',
        elements: [
          plain(
            'The bot keeps what you link encrypted, signs in as you, and acts as you only when you ask it. Where your TeamPass allows personal access tokens, link one instead of your password: you can revoke it at any time.',
          ),
        ],
      },
    );
  }
  if (await isLinkAdmin(deps, user).catch(() => false))
    blocks.push({
      type: 'context',
      elements: [
        plain(
          `Link admin: ${COMMAND} unlink <member ID> removes someone's link (audited, and they are told).`,
        ),
      ],
    });
  return blocks;
}

/** What a failed link attempt is told: why, in words for the person, never the vault's own text. */
function linkProblem(error: unknown): string {
  if (!isVaultError(error)) return UNEXPECTED_ERROR_MESSAGE;
  switch (error.code) {
    case 'unauthorized':
      return 'TeamPass refused the sign-in: check the login and the password and API key (or the token). TeamPass answers the same way when the account’s API access is switched off.';
    case 'api_disabled':
      return 'TeamPass refused: its API is switched off, or it does not accept personal access tokens. Link with your password and API key, or ask a TeamPass admin.';
    case 'forbidden':
      return 'TeamPass refused the request (it may require HTTPS, or not allow the bot’s address). Please tell a TeamPass admin.';
    default:
      return friendlyMessage(error, true);
  }
}

/** The answer to a read permission that is off: the account could read nothing through the bot. */
const READ_OFF =
  'Your TeamPass account may not read through the API (its API “read” permission is off), so the bot could show you nothing. Ask a TeamPass admin to allow it, then link again.';

/** A wait, in words: minutes up to two hours, then hours. */
function waitText(seconds: number): string {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  return minutes <= 120 ? `${minutes} min` : `${Math.ceil(minutes / 60)} h`;
}

/** What a person is told when no sign-in was tried for their link, and why. */
function pauseText(pause: SignInPause, seconds: number): string {
  switch (pause) {
    case 'vault_locked':
      return `TeamPass has locked sign-ins through the bot for a while, after too many failed sign-ins. Nothing was tried. Please try again in ${waitText(seconds)}; the bot’s link admins are told.`;
    case 'budget_spent':
      return `The bot has had too many failed TeamPass sign-ins today, so it tries no new link for now (more would make TeamPass lock everyone out). Please try again in ${waitText(seconds)}; the bot’s link admins are told.`;
    case 'login_capped':
      return `Too many failed attempts to link this TeamPass login today. Please try again in ${waitText(seconds)}, or ask a TeamPass admin.`;
  }
}

/**
 * Tells the bot's link admins (by DM) that link attempts are paused, and audits it. Best effort:
 * a failure is logged.
 *
 * @param deps The settings, the Slack client and the logger.
 * @param audit The audit log.
 * @param pause Why.
 * @param seconds For how long.
 */
export async function tellLinkAdmins(
  deps: Pick<Deps, 'config' | 'slack' | 'logger' | 'redact'>,
  audit: Deps['audit'],
  pause: SignInPause,
  seconds: number,
): Promise<void> {
  await audit.record({
    event: AUDIT_EVENTS.signInsPaused,
    slackUser: '',
    slackTeam: undefined,
    login: undefined,
    channel: undefined,
    outcome: pause,
  });
  const text =
    pause === 'vault_locked'
      ? `TeamPass locked sign-ins through the bot (“Account temporarily locked”), after too many failed sign-ins from the bot’s address or of one login. Links are kept; link attempts wait ${waitText(seconds)} (${ENV.signInLockSeconds}). If nobody expected failed sign-ins, look at the audit’s ${AUDIT_EVENTS.linkFailed} records.`
      : pause === 'budget_spent'
        ? `The bot spent its budget of failed TeamPass sign-ins (${deps.config.failedSignInsPerDay} per 24 h, ${ENV.failedSignInsPerDay}): it tries no new link for ${waitText(seconds)}, so that TeamPass does not lock the bot’s address for everyone. Look at the audit’s ${AUDIT_EVENTS.linkFailed} records for who tried.`
        : `Link attempts at one TeamPass login failed ${deps.config.failedSignInsPerLogin} times in 24 h (${ENV.failedSignInsPerLogin}): the bot tries that login no more for ${waitText(seconds)}. Look at the audit’s ${AUDIT_EVENTS.linkFailed} records for who tried.`;
  try {
    const client = deps.slack();
    for (const admin of await expand(deps, deps.config.linkAdmins))
      await client.chat.postMessage({ channel: admin, text, unfurl_links: false, unfurl_media: false });
  } catch (error) {
    deps.logger.warn(errorFields(error, deps.redact), 'could not tell the link admins');
  }
}

/** A login as a login box should hold it: no spaces, no symbols a password would have. */
const LOGIN_SHAPE = /^[\p{L}\p{N}._@+-]{1,100}$/u;

/**
 * Checks what a person gave by signing in to the vault with it, and keeps it (sealed) when the
 * vault took it: the session token of that sign-in is kept too, so the next command signs in no
 * more. The modal is updated with the outcome; a failure shows the form again, with the login
 * only when it looks like one (a password typed into the login box is not shown back). Only a
 * login the vault confirmed is audited or posted. Each attempt reserves one failure of the bot's
 * budget of failed sign-ins (and of the login's), given back when the vault did not refuse.
 */
async function verifyAndLink(
  deps: Deps,
  who: { user: string; team: string | undefined; client: webApi.WebClient; externalId: string },
  login: string,
  credentials: LinkCredentials,
): Promise<void> {
  const linking = deps.linking;
  if (!linking) return;
  // What was typed into the login box is not a login until the vault says so: never audited.
  const base = { slackUser: who.user, slackTeam: who.team, channel: undefined, login: undefined };
  const method = 'personalAccessToken' in credentials ? 'token' : 'password';
  const typedSecrets = Object.values(credentials).map((value) => value.trim());
  const refill = LOGIN_SHAPE.test(login) && !typedSecrets.includes(login) ? login : undefined;
  const show = (view: types.ModalView) =>
    who.client.views
      .update({ external_id: who.externalId, view })
      .catch((error: unknown) =>
        deps.logger.warn(errorFields(error, deps.redact), 'could not update the link form'),
      );
  const again = (problem: string) =>
    show(linkModal(deps.config.linkCredentials, who.externalId, { problem, login: refill }));

  const limit = await linking.attempts.hit(who.user);
  if (!limit.allowed) {
    await deps.audit.record({ event: AUDIT_EVENTS.linkFailed, ...base, outcome: 'rate_limited' });
    await again(
      `Too many link attempts in a short time. Please try again in ${Math.max(1, Math.ceil(limit.retryAfterSeconds / 60))} min.`,
    );
    return;
  }
  const reserved = await linking.signIns.reserve(login).catch((error: unknown) => {
    deps.logger.warn(errorFields(error, deps.redact), 'could not count a link attempt in the store');
    return undefined;
  });
  if (!reserved) {
    // Without the count, no sign-in: an attempt the budget cannot see could lock the address.
    await deps.audit.record({ event: AUDIT_EVENTS.linkFailed, ...base, outcome: 'error:store' });
    await again(UNEXPECTED_ERROR_MESSAGE);
    return;
  }
  if (!reserved.ok) {
    await deps.audit.record({ event: AUDIT_EVENTS.linkFailed, ...base, outcome: `paused:${reserved.pause}` });
    if (
      reserved.pause !== 'vault_locked' &&
      (await linking.signIns.firstNotice(reserved.pause, login).catch(() => false))
    )
      await tellLinkAdmins(deps, deps.audit, reserved.pause, reserved.retryAfterSeconds);
    await again(pauseText(reserved.pause, reserved.retryAfterSeconds));
    return;
  }
  // The attempt's secrets, and the login typed (it may be a password typed in the wrong box), are
  // redacted from every log line while they are held.
  const held = `link-attempt:${who.user}:${randomUUID()}`;
  deps.secrets.hold(held, [...Object.values(credentials), ...([...login].length >= 3 ? [login] : [])]);
  let token: string | undefined;
  const client = linking.connect(login, credentials, {
    get: () => undefined,
    set: (next) => {
      token = next;
    },
  });
  try {
    const identity = await client.identity();
    // A count the store could not give back errs on the safe side: the link goes on.
    await reserved.ticket
      .settle(false)
      .catch((settleError: unknown) =>
        deps.logger.warn(errorFields(settleError, deps.redact), 'could not count a link attempt'),
      );
    // The vault confirmed the login: it is no secret any more.
    deps.secrets.hold(held, Object.values(credentials));
    const linkedLogin = identity.login ?? login;
    if (identity.api?.read === false) {
      await client.dispose();
      await deps.audit.record({
        event: AUDIT_EVENTS.linkFailed,
        ...base,
        login: linkedLogin,
        outcome: 'api_read_off',
      });
      await again(READ_OFF);
      return;
    }
    // An earlier link goes first, and its session is signed out.
    const previous = await deps.accounts.unlink(who.user);
    await linking.links.save({
      slackUser: who.user,
      slackTeam: who.team,
      login: linkedLogin,
      credentials,
      token,
    });
    deps.accounts.forget(who.user);
    // The token stays in the store for the person's client: no sign-out.
    await client.dispose({ signOut: false });
    await deps.audit.record({
      event: AUDIT_EVENTS.accountLinked,
      ...base,
      login: linkedLogin,
      outcome: `${previous ? 'relinked' : 'linked'}:${method}`,
    });
    await show(
      statusModal(
        `Linked to the TeamPass account ${escapeText(linkedLogin, 80)}. You can close this window: ${COMMAND} find and the Home tab now show what it may read.`,
        who.externalId,
      ),
    );
    await publishHome(deps, who.user, who.client);
  } catch (error) {
    const refused = isVaultError(error, 'unauthorized') && error.reason === 'sign_in_refused';
    await reserved.ticket
      .settle(refused)
      .catch((settleError: unknown) =>
        deps.logger.warn(errorFields(settleError, deps.redact), 'could not count a link attempt'),
      );
    const fields = errorFields(error, deps.redact);
    deps.logger.warn({ slackUser: who.user, ...fields }, 'a link attempt failed');
    await client.dispose({ signOut: false }).catch(() => undefined);
    if (isVaultError(error, 'unauthorized') && error.reason === 'sign_in_locked') {
      await deps.audit.record({ event: AUDIT_EVENTS.linkFailed, ...base, outcome: 'vault_locked' });
      const lock = await linking.signIns
        .locked()
        .catch(() => ({ retryAfterSeconds: deps.config.signInLockSeconds, first: false }));
      if (lock.first) await tellLinkAdmins(deps, deps.audit, 'vault_locked', lock.retryAfterSeconds);
      await again(pauseText('vault_locked', lock.retryAfterSeconds));
      return;
    }
    await deps.audit.record({ event: AUDIT_EVENTS.linkFailed, ...base, outcome: `error:${fields.code}` });
    await again(linkProblem(error));
  } finally {
    deps.secrets.release(held);
  }
}

/** Removes a person's own link, audits it, and republishes their App Home. */
async function unlinkSelf(
  deps: Deps,
  who: { user: string; team: string | undefined; channel: string | undefined },
): Promise<{ login: string } | undefined> {
  const removed = await deps.accounts.unlink(who.user);
  await deps.audit.record({
    event: AUDIT_EVENTS.accountUnlinked,
    slackUser: who.user,
    slackTeam: who.team,
    login: removed?.login,
    channel: who.channel,
    outcome: removed ? 'by_user' : 'not_linked',
  });
  return removed;
}

/** A Slack user id as typed or as Slack escapes a mention: `U0123ABC`, `<@U0123ABC>`, `<@U0123ABC|name>`. */
function memberIdOf(text: string): string | undefined {
  const match = /^(?:<@)?([UW][A-Z0-9]{2,30})(?:\|[^>]{0,100})?>?$/.exec(text.trim());
  return match?.[1];
}

/**
 * `/vault link`: never takes credentials. With anything after `link` (a login, a password typed by
 * mistake) it refuses without repeating, keeping or logging it; else it answers with the button
 * that opens the link form in a modal (or says the vault needs no linking).
 *
 * @param deps The bot's parts.
 * @returns The handler.
 */
export function linkCommand(deps: Deps): Middleware<SlackCommandMiddlewareArgs> {
  return async (args) => {
    const { arg } = parseCommandText(args.command.text);
    if (arg !== '') {
      // Audited first, as every answer is (the line is written before the answer goes out).
      await deps.audit.record({
        event: AUDIT_EVENTS.linkTyped,
        slackUser: args.command.user_id,
        slackTeam: args.command.team_id,
        login: undefined,
        channel: args.command.channel_id,
        outcome: 'refused',
      });
      await args.ack(
        note(
          `Never type a password, key or token in Slack: what followed “link” was not used, kept or shown, but if it was a password, change it in TeamPass. Link your account in a private window instead: ${COMMAND} link alone, or the bot’s Home tab.`,
        ),
      );
      return;
    }
    if (!deps.accounts.linking) {
      await args.ack(
        note(
          'This vault needs no linking: the bot acts for the vault user your Slack account is mapped to. Ask a vault admin if the bot shows you nothing.',
        ),
      );
      return;
    }
    await args.ack(
      linkOffer(
        'Link your TeamPass account in a private window: use the button below (or the bot’s Home tab). Never type a password in a command.',
      ),
    );
  };
}

/**
 * `/vault unlink`: removes the person's own link; `/vault unlink <member ID>` removes someone
 * else's, for link admins only (audited, and the person is told by DM). What follows `unlink` is
 * shown back only when it is a Slack member id.
 *
 * @param deps The bot's parts.
 * @returns The handler.
 */
export function unlinkCommand(deps: Deps): Middleware<SlackCommandMiddlewareArgs> {
  return async (args) => {
    const { arg } = parseCommandText(args.command.text);
    const caller = commandCaller(args);
    const target = arg === '' ? caller.slackUser : memberIdOf(arg);
    if (target === undefined) {
      await args.ack(note(`Usage: ${COMMAND} unlink, or ${COMMAND} unlink <member ID> for a link admin.`));
      return;
    }
    if (!deps.accounts.linking) {
      await args.ack(note('This vault needs no linking, so there is nothing to unlink.'));
      return;
    }
    await args.ack(note(target === caller.slackUser ? 'Unlinking your account…' : `Unlinking ${target}…`));
    await deps.ackFirst.quiet();
    await deps.afterAck(async () => {
      try {
        if (target === caller.slackUser) {
          const removed = await unlinkSelf(deps, {
            user: caller.slackUser,
            team: caller.slackTeam,
            channel: caller.channel,
          });
          await caller.respond(
            note(
              removed
                ? `Your TeamPass account ${escapeText(removed.login, 80)} is unlinked: the bot forgot its credentials and signed its session out.`
                : 'You have no linked account.',
            ),
          );
          await publishHome(deps, caller.slackUser, caller.client);
          return;
        }
        const who = {
          slackUser: target,
          slackTeam: caller.slackTeam,
          channel: caller.channel,
          decidedBy: caller.slackUser,
        };
        if (!(await isLinkAdmin(deps, caller.slackUser))) {
          await deps.audit.record({
            event: AUDIT_EVENTS.unlinkRefused,
            ...who,
            login: undefined,
            outcome: 'not_admin',
          });
          await caller.respond(note('Only the bot’s link admins can unlink another person’s account.'));
          return;
        }
        const removed = await deps.accounts.unlink(target);
        await deps.audit.record({
          event: AUDIT_EVENTS.accountUnlinked,
          ...who,
          login: removed?.login,
          outcome: removed ? 'by_admin' : 'not_linked',
        });
        if (!removed) {
          await caller.respond(note(`${target} has no linked account.`));
          return;
        }
        await caller.respond(
          note(`Unlinked the TeamPass account ${escapeText(removed.login, 80)} of ${target}. They are told.`),
        );
        await deps
          .slack()
          .chat.postMessage({
            channel: target,
            text: `A link admin of the bot (Slack user ${caller.slackUser}) unlinked your TeamPass account ${escapeText(removed.login, 80)}: the bot forgot its credentials. Link it again from the bot’s Home tab if you need it.`,
            unfurl_links: false,
            unfurl_media: false,
          })
          .catch((error: unknown) =>
            deps.logger.warn(
              errorFields(error, deps.redact),
              'could not tell a person their link was removed',
            ),
          );
        await publishHome(deps, target, deps.slack());
      } catch (error) {
        deps.logger.warn(errorFields(error, deps.redact), 'could not unlink');
        await caller.respond(note(UNEXPECTED_ERROR_MESSAGE)).catch(() => undefined);
      }
    });
  };
}

/**
 * Registers the link flow: the button that opens the link form (App Home, or a message), the
 * form's submission (checked by signing in, kept sealed), and the App Home's Unlink.
 *
 * @param app The Bolt app.
 * @param deps The bot's parts.
 */
export function registerLink(app: App, deps: Deps): void {
  app.action<BlockAction<ButtonAction>>(
    { type: 'block_actions', action_id: ACTIONS.linkOpen },
    async ({ ack, body, client }) => {
      await ack();
      const user = body.user.id;
      const externalId = deps.views.tag(user);
      let view: types.ModalView;
      if (!deps.linking) view = statusModal('This vault needs no linking.', externalId);
      else {
        // The login of an earlier link is filled in (a login is not a secret).
        const identity = await deps.accounts.whoIs(user, client).catch(() => undefined);
        view = linkModal(deps.config.linkCredentials, externalId, { login: identity?.login });
      }
      const open = body.view?.type === 'modal' ? client.views.push : client.views.open;
      await open({ trigger_id: body.trigger_id, view }).catch((error: unknown) =>
        deps.logger.warn(errorFields(error, deps.redact), 'could not open the link form'),
      );
    },
  );
  app.view<ViewSubmitAction>(
    ACTIONS.linkModal,
    async (args: SlackViewMiddlewareArgs<ViewSubmitAction> & { client: webApi.WebClient }) => {
      // The guards checked that this external_id is the one the bot gave this person's modal.
      const externalId = args.view.external_id;
      if (!deps.linking || !externalId) {
        await args.ack();
        return;
      }
      const values = args.view.state.values;
      const parsed = parseLinkForm(
        deps.config.linkCredentials,
        (block) => values[block]?.[INPUT]?.value ?? '',
      );
      if (!parsed.ok) {
        await args.ack({ response_action: 'errors', errors: parsed.errors });
        return;
      }
      // The form goes at once (the secrets leave the view); the outcome replaces it.
      await args.ack({
        response_action: 'update',
        view: statusModal('Checking your TeamPass account…', externalId),
      });
      const who = {
        user: args.body.user.id,
        team: args.body.team?.id ?? undefined,
        client: args.client,
        externalId,
      };
      await deps.ackFirst.quiet();
      await deps.afterAck(() =>
        verifyAndLink(deps, who, parsed.login, parsed.credentials).catch((error: unknown) =>
          deps.logger.warn(errorFields(error, deps.redact), 'could not link an account'),
        ),
      );
    },
  );
  app.action<BlockAction<ButtonAction>>(
    { type: 'block_actions', action_id: ACTIONS.unlinkSelf },
    async ({ ack, body, client }) => {
      await ack();
      await deps.ackFirst.quiet();
      await deps.afterAck(async () => {
        try {
          await unlinkSelf(deps, { user: body.user.id, team: body.team?.id, channel: body.channel?.id });
        } catch (error) {
          deps.logger.warn(errorFields(error, deps.redact), 'could not unlink');
        }
        await publishHome(deps, body.user.id, client);
      });
    },
  );
}
