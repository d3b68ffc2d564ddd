import { MAX_SEARCH_LENGTH } from '@vaultline/protocol';
import { LINK_WORDS } from './constants.ts';

/** A word for linking glued to what follows by punctuation: `link:alice:pw`, `login=alice`. */
const GLUED_LINK_WORD = new RegExp(`^(${LINK_WORDS.join('|')})[^\\p{L}\\p{N}\\s]+([\\s\\S]*)$`, 'iu');

/**
 * Splits `/vault <sub> <argument>` text. A word for linking followed by punctuation
 * (`link:alice:<password>`) is that word, and what follows the punctuation its argument: the link
 * command then refuses it as typed credentials.
 *
 * @param text The command text as Slack sent it.
 * @returns The lower-cased subcommand and the rest, trimmed.
 */
export function parseCommandText(text: string | undefined): { sub: string; arg: string } {
  const trimmed = (text ?? '').trim();
  const match = /^(\S+)\s*([\s\S]*)$/.exec(trimmed);
  const first = match?.[1] ?? '';
  const rest = (match?.[2] ?? '').trim();
  const glued = GLUED_LINK_WORD.exec(first);
  if (glued) return { sub: (glued[1] ?? '').toLowerCase(), arg: `${glued[2] ?? ''} ${rest}`.trim() };
  return { sub: first.toLowerCase(), arg: rest };
}

/**
 * Whether an unknown subcommand may be shown back: a short word of letters (a typo of a
 * subcommand), never what could be a password or a key typed in the wrong place.
 *
 * @param sub The subcommand as typed (lower-cased).
 * @returns Whether to echo it.
 */
export function isEchoableWord(sub: string): boolean {
  return /^[\p{L}][\p{L}-]{0,19}$/u.test(sub);
}

/**
 * Checks a search text or label.
 *
 * @param arg The text.
 * @param usage The usage line shown when it is empty.
 * @returns A problem to tell the person, or undefined when it is fine.
 */
export function queryProblem(arg: string, usage: string): string | undefined {
  if (arg.length === 0) return `Usage: ${usage}`;
  if ([...arg].length > MAX_SEARCH_LENGTH)
    return `That is too long: at most ${MAX_SEARCH_LENGTH} characters, please.`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are refused.
  if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(arg))
    return 'That text holds control characters; please type it again.';
  return undefined;
}
