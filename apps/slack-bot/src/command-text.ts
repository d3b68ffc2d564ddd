import { MAX_SEARCH_LENGTH } from '@vaultline/protocol';

/**
 * Splits `/vault <sub> <argument>` text.
 *
 * @param text The command text as Slack sent it.
 * @returns The lower-cased subcommand and the rest, trimmed.
 */
export function parseCommandText(text: string | undefined): { sub: string; arg: string } {
  const trimmed = (text ?? '').trim();
  const match = /^(\S+)\s*([\s\S]*)$/.exec(trimmed);
  return { sub: (match?.[1] ?? '').toLowerCase(), arg: (match?.[2] ?? '').trim() };
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
