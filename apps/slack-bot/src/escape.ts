import { MAX_SHOWN_TEXT } from './constants.ts';

const WORD_JOINER = '\u2060';

/**
 * Makes text safe to show in a Slack mrkdwn field: `&`, `<` and `>` are escaped (so no `<!here>`,
 * `<@U…>` or `<http://…|link>` can be formed) and broadcast words (`@here`, `@channel`,
 * `@everyone`) get an invisible word joiner so they never notify anyone. Use it with
 * `verbatim: true` so Slack does not auto-link bare URLs or channel names either.
 *
 * @see https://api.slack.com/reference/surfaces/formatting#escaping
 * @param value The text from a user or the vault.
 * @param max The longest text kept; longer text is shortened with an ellipsis.
 * @returns The escaped text.
 */
export function escapeMrkdwn(value: string, max = MAX_SHOWN_TEXT): string {
  const chars = [...value.normalize('NFC')];
  const shortened = chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : value.normalize('NFC');
  return (
    shortened
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/@(here|channel|everyone)\b/gi, `@${WORD_JOINER}$1`)
      // Control characters and line breaks would let a label fake extra lines of the message.
      // biome-ignore lint/suspicious/noControlCharactersInRegex: they are what is removed.
      .replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, ' ')
  );
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
