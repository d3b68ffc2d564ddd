import type { types } from '@slack/bolt';
import { ACTIONS, SLACK_MAX_BLOCKS, SLACK_MAX_BUTTON_URL } from './constants.ts';
import { escapeText, safeHttpUrl } from './escape.ts';
import type { ListedItem } from './search.ts';

type Block = types.KnownBlock;

/** A message for `respond()`: always ephemeral, never unfurled. */
export interface EphemeralMessage {
  response_type: 'ephemeral';
  replace_original: boolean;
  text: string;
  blocks?: Block[];
  unfurl_links: false;
  unfurl_media: false;
}

/** What a page button carries: enough to run the same search again. */
export interface PageState {
  kind: 'find' | 'get';
  q: string;
  p: number;
  /** For `get`: whether the items carry the label exactly (else they only contain it). */
  exact?: boolean;
  /** For `find`: false when the vault's result cap was hit and more items may match. */
  complete?: boolean;
}

/**
 * A mrkdwn text object that Slack shows as written: no auto-linked URLs, channels or mentions.
 *
 * @param text Already escaped mrkdwn.
 * @returns The text object.
 */
export function mrkdwn(text: string): types.MrkdwnElement {
  return { type: 'mrkdwn', text, verbatim: true };
}

/**
 * A plain-text element: Slack shows it as written, no formatting, no links, no mentions.
 *
 * @param text Text already passed through {@link escapeText}.
 * @returns The text object.
 */
export function plain(text: string): types.PlainTextElement {
  return { type: 'plain_text', text, emoji: false };
}

/**
 * A plain ephemeral message, in a plain-text block (it may quote what a person typed or a label).
 *
 * @param text Text already passed through {@link escapeText}.
 * @param replace Whether it replaces the message a button was on.
 * @returns The message.
 */
export function note(text: string, replace = false): EphemeralMessage {
  return {
    response_type: 'ephemeral',
    replace_original: replace,
    text,
    blocks: [{ type: 'section', text: plain(text) }],
    unfurl_links: false,
    unfurl_media: false,
  };
}

/**
 * An ephemeral message of the bot's own mrkdwn (help), with nothing from a user or the vault in it.
 *
 * @param text The bot's mrkdwn.
 * @returns The message.
 */
export function noteMrkdwn(text: string): EphemeralMessage {
  return { ...note(text), blocks: [{ type: 'section', text: mrkdwn(text) }] };
}

function pathOf(item: ListedItem): string {
  return item.path.length > 0
    ? item.path.map((part) => escapeText(part, 80)).join(' › ')
    : '(no folder path)';
}

/**
 * The two blocks of one listed item: what it is, and its buttons.
 *
 * @param item The item.
 * @returns A section and an actions block.
 */
export function itemBlocks(item: ListedItem): Block[] {
  const login = item.login ? escapeText(item.login, 200) : '(none)';
  const id = String(item.id);
  const buttons: types.Button[] = [
    {
      type: 'button',
      action_id: ACTIONS.showLogin,
      text: { type: 'plain_text', text: 'Show login' },
      value: id,
    },
    {
      type: 'button',
      action_id: ACTIONS.reveal,
      text: { type: 'plain_text', text: 'Reveal password' },
      value: id,
    },
  ];
  const url = safeHttpUrl(item.url, SLACK_MAX_BUTTON_URL);
  if (url)
    buttons.push({
      type: 'button',
      action_id: ACTIONS.openUrl,
      text: { type: 'plain_text', text: 'Open URL' },
      url,
      value: id,
    });
  return [
    {
      type: 'section',
      text: plain(
        `${escapeText(item.label)}  ·  #${id}\n${pathOf(item)}\nLogin: ${login}\nYour access: ${item.access}`,
      ),
    },
    { type: 'actions', block_id: `item_${id}`, elements: buttons },
  ];
}

/**
 * One page of results, with previous/next buttons when there are more than fit.
 *
 * @param items All readable results, in order.
 * @param state The search and the page (0-based) to show.
 * @param pageSize Items per page.
 * @param replace Whether it replaces the previous page.
 * @returns The message.
 */
export function resultPage(
  items: ListedItem[],
  state: PageState,
  pageSize: number,
  replace: boolean,
): EphemeralMessage {
  const pages = Math.max(1, Math.ceil(items.length / pageSize));
  const page = Math.min(Math.max(0, state.p), pages - 1);
  const shown = items.slice(page * pageSize, (page + 1) * pageSize);
  const query = escapeText(state.q, 200);
  const what =
    state.kind === 'find'
      ? `Items you can read matching “${query}”`
      : state.exact
        ? `Several items you can read are labelled “${query}”; pick one`
        : `No item you can read is labelled exactly “${query}”; these contain it`;
  const count = state.complete === false ? `the first ${items.length}` : `${items.length}`;
  const refine = state.complete === false ? ' More match: refine the search to see them.' : '';
  const summary = `${what}: ${count} (page ${page + 1} of ${pages}).${refine}`;
  const blocks: Block[] = [{ type: 'section', text: plain(summary) }];
  for (const item of shown) blocks.push(...itemBlocks(item));
  if (pages > 1) {
    const nav: types.Button[] = [];
    const value = (p: number) =>
      JSON.stringify({
        kind: state.kind,
        q: state.q,
        p,
        exact: state.exact ?? false,
        complete: state.complete ?? true,
      });
    if (page > 0)
      nav.push({
        type: 'button',
        action_id: `${ACTIONS.page}_prev`,
        text: { type: 'plain_text', text: '◀ Previous' },
        value: value(page - 1),
      });
    if (page < pages - 1)
      nav.push({
        type: 'button',
        action_id: `${ACTIONS.page}_next`,
        text: { type: 'plain_text', text: 'Next ▶' },
        value: value(page + 1),
      });
    blocks.push({ type: 'actions', block_id: 'pages', elements: nav });
  }
  if (blocks.length > SLACK_MAX_BLOCKS)
    throw new RangeError(`A result page has ${blocks.length} blocks; Slack allows ${SLACK_MAX_BLOCKS}.`);
  return {
    response_type: 'ephemeral',
    replace_original: replace,
    text: summary,
    blocks,
    unfurl_links: false,
    unfurl_media: false,
  };
}

/**
 * A refused `get`: nothing about any item, and a button to ask the approvers for what was typed.
 *
 * @param typed What the person typed.
 * @returns The message.
 */
export function requestAccessOffer(typed: string): EphemeralMessage {
  const text = `No item you can read has the id or label “${escapeText(typed, 200)}”. If you need it, you can ask the approvers for access.`;
  return offerWithButton(text, 'request_access', {
    type: 'button',
    action_id: ACTIONS.requestAccess,
    text: plain('Request access'),
    value: [...typed].slice(0, 1000).join(''),
  });
}

/**
 * A message of one sentence with one button under it (an offer: link, request access).
 *
 * @param text The bot's own sentence, already escaped.
 * @param blockId The block id of the button's row.
 * @param button The button.
 * @returns The message.
 */
export function offerWithButton(text: string, blockId: string, button: types.Button): EphemeralMessage {
  return {
    ...note(text),
    blocks: [
      { type: 'section', text: plain(text) },
      { type: 'actions', block_id: blockId, elements: [button] },
    ],
  };
}

/**
 * One item, for `/vault get`.
 *
 * @param item The item.
 * @returns The message.
 */
export function singleItem(item: ListedItem): EphemeralMessage {
  const text = `Item “${escapeText(item.label)}”`;
  return {
    response_type: 'ephemeral',
    replace_original: false,
    text,
    blocks: itemBlocks(item),
    unfurl_links: false,
    unfurl_media: false,
  };
}

/**
 * The reveal: the only message that ever holds a password, in plain text so nothing in it is
 * parsed, shown to the person who clicked only.
 *
 * @param item The item.
 * @param password The password.
 * @param seconds When it will be hidden again.
 * @returns The message, replacing the one the button was on.
 */
export function revealed(item: ListedItem, password: string, seconds: number): EphemeralMessage {
  const title = `Password of “${escapeText(item.label)}” (#${item.id}), shown to you only`;
  return {
    response_type: 'ephemeral',
    replace_original: true,
    // The notification text never carries the password.
    text: title,
    blocks: [
      { type: 'section', text: plain(`${title}\n${pathOf(item)}`) },
      { type: 'section', text: { type: 'plain_text', text: password, emoji: false } },
      { type: 'context', elements: [mrkdwn(`This will be hidden in ${seconds} seconds.`)] },
    ],
    unfurl_links: false,
    unfurl_media: false,
  };
}

/**
 * What replaces a reveal after the delay.
 *
 * @param item The item.
 * @returns The message.
 */
export function redacted(item: ListedItem): EphemeralMessage {
  const text = `The password of “${escapeText(item.label)}” (#${item.id}) was shown and is hidden again. Run /vault get ${item.id} to see it once more.`;
  return note(text, true);
}

/**
 * A login, in plain text to copy.
 *
 * @param item The item.
 * @returns The message (a new one; the list stays).
 */
export function loginShown(item: ListedItem): EphemeralMessage {
  const title = `Login of “${escapeText(item.label)}” (#${item.id})`;
  return {
    response_type: 'ephemeral',
    replace_original: false,
    text: title,
    blocks: [
      { type: 'section', text: plain(title) },
      { type: 'section', text: { type: 'plain_text', text: item.login || '(none)', emoji: false } },
    ],
    unfurl_links: false,
    unfurl_media: false,
  };
}

/** The help text. */
export const HELP_TEXT = [
  '*/vault find <text>*: lists the items you may read with every word of the text in their label, login, URL or folder, best first.',
  '*/vault get <id or exact label>*: shows one item; a label shared by several items lists them.',
  '*/vault request <id or label> [reason]*: asks the approvers for a one-time reveal of an item you cannot read.',
  '*/vault link*: links your own TeamPass account, in a private window (where the vault needs it); */vault unlink* removes it. Never type a password in a command.',
  'Buttons: *Show login*, *Reveal password* (shown to you only, hidden again after a while), *Open URL*.',
  'You only ever see what your vault user may read. Every search and reveal is audited.',
].join('\n');

/**
 * The reveal as a modal: only the clicker sees a modal at all.
 *
 * @param item The item.
 * @param password The password.
 * @param seconds When it will be hidden again.
 * @returns The view.
 */
export function revealedModal(item: ListedItem, password: string, seconds: number): types.ModalView {
  return {
    type: 'modal',
    title: { type: 'plain_text', text: 'Vault password' },
    close: { type: 'plain_text', text: 'Close' },
    blocks: [
      { type: 'section', text: plain(`${escapeText(item.label)} (#${item.id})\n${pathOf(item)}`) },
      { type: 'section', text: { type: 'plain_text', text: password, emoji: false } },
      { type: 'context', elements: [mrkdwn(`This will be hidden in ${seconds} seconds.`)] },
    ],
  };
}

/**
 * The reveal's modal as it opens, before the password is in it (its redaction is saved first).
 *
 * @param item The item.
 * @returns The view.
 */
export function revealingModal(item: ListedItem): types.ModalView {
  return {
    type: 'modal',
    title: { type: 'plain_text', text: 'Vault password' },
    close: { type: 'plain_text', text: 'Close' },
    blocks: [
      {
        type: 'section',
        text: plain(`${escapeText(item.label)} (#${item.id})\n${pathOf(item)}\nRevealing…`),
      },
    ],
  };
}

/**
 * What replaces the modal's password after the delay.
 *
 * @param item The item.
 * @returns The view.
 */
export function redactedModal(item: ListedItem): types.ModalView {
  return {
    type: 'modal',
    title: { type: 'plain_text', text: 'Vault password' },
    close: { type: 'plain_text', text: 'Close' },
    blocks: [{ type: 'section', text: plain(redacted(item).text) }],
  };
}

/**
 * A modal of the bot's with the given blocks (search results, a login, a note).
 *
 * @param blocks The blocks.
 * @param title The title (at most 24 characters).
 * @returns The view.
 */
export function modalOf(blocks: readonly (Block | types.AnyBlock)[], title = 'Vaultline'): types.ModalView {
  return {
    type: 'modal',
    title: { type: 'plain_text', text: title },
    close: { type: 'plain_text', text: 'Close' },
    blocks: blocks.slice(0, 100) as types.ModalView['blocks'],
  };
}
