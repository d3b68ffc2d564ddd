import { neutralizeText } from '@vaultline/protocol';
import { MAX_SHOWN_TEXT } from './constants.ts';

const WORD_JOINER = '\u2060';

/**
 * Makes text from a user or the vault safe to show in any Slack text (a `plain_text` element, a
 * notification's fallback text): `&`, `<` and `>` are escaped (so no `<!here>`, `<@U…>` or
 * `<http://…|link>` can be formed), broadcast words (`@here`, `@channel`, `@everyone`) get an
 * invisible word joiner so they never notify anyone, and the core's `neutralizeText` makes the rest
 * inert: line breaks and control characters become spaces (a label cannot fake extra lines of the
 * message), format characters and invisible fillers (which reorder or hide text, e.g. U+202E,
 * U+200B, U+00AD, U+3164) become U+FFFD, visibly.
 *
 * @see https://api.slack.com/reference/surfaces/formatting#escaping
 * @param value The text.
 * @param max The longest text kept; longer text is shortened with an ellipsis.
 * @returns The escaped text.
 */
export function escapeText(value: string, max = MAX_SHOWN_TEXT): string {
  const chars = [...value.normalize('NFC')];
  const shortened = chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : chars.join('');
  // Neutralised first: the word joiner added after is itself a format character of the rule.
  return neutralizeText(shortened)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/@(here|channel|everyone)\b/gi, `@${WORD_JOINER}$1`);
}

/** Mrkdwn's formatting characters and the look-alikes that show them without formatting. */
const FORMATTING: Readonly<Record<string, string>> = { '*': '∗', _: '＿', '~': '∼', '`': 'ˋ' };

/**
 * Makes text safe inside a Slack mrkdwn field: {@link escapeText}, and mrkdwn's formatting
 * characters (`*`, `_`, `~`, backtick), which Slack cannot escape, shown as look-alikes. Prefer a
 * `plain_text` element with {@link escapeText}; use this with `verbatim: true` where mrkdwn is
 * needed around the text.
 *
 * @param value The text from a user or the vault.
 * @param max The longest text kept.
 * @returns The escaped text.
 */
export function escapeMrkdwn(value: string, max = MAX_SHOWN_TEXT): string {
  return escapeText(value, max).replace(/[*_~`]/g, (char) => FORMATTING[char] ?? char);
}

/**
 * Keeps only a URL Slack may open from a button: absolute http(s), no credentials in it, short
 * enough for Block Kit.
 *
 * @param value The item's URL as stored in the vault.
 * @param max The longest URL accepted.
 * @returns The normalised URL, or undefined when it is not one to offer.
 */
export function safeHttpUrl(value: string | undefined, max: number): string | undefined {
  if (!value) return undefined;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password) return undefined;
  const href = url.href;
  return href.length <= max ? href : undefined;
}
