/**
 * Text rules shared by every part: how labels are folded to be compared, and how text from
 * outside is made inert before it is shown.
 *
 * @module
 */

/**
 * The form in which labels are compared, for search and for the "similar label" rule: without
 * accents, case, compatibility variants and surrounding spaces (`"  Café  "` → `"cafe"`).
 *
 * @param label The label or search text.
 * @returns The folded text.
 */
export function foldLabel(label: string): string {
  return label.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().trim();
}

/**
 * The longest search text, in characters (Unicode code points): the Vaultline server refuses
 * longer ones (400), the core's search refuses them before sending, and adapters (the Slack bot)
 * check it up front. The one search-length limit.
 */
export const MAX_SEARCH_LENGTH = 100;

/** C0 and C1 control characters and the line and paragraph separators: they break lines or drive terminals. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it replaces.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/**
 * Characters that reorder or hide text: the Arabic letter mark, zero-width characters and
 * directional marks, bidirectional embeddings, overrides and isolates, the byte order mark.
 */
const HIDING_CHARACTERS = /[\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/**
 * Makes text from outside (a value a client sent, a label from a vault) inert wherever it is shown:
 * control characters and line breaks become spaces (no fake lines, no terminal escapes), and
 * characters that reorder or hide text (bidirectional controls such as U+202E, zero-width
 * characters) become U+FFFD, visibly. Each character stands for one: the length stays the same.
 * The one rule for echoed values: the Vaultline server's error texts and the Slack bot's labels.
 *
 * @param text The text.
 * @returns The text, safe to show.
 * @example
 * ```ts
 * neutralizeText('\u202ebbx_alice'); // '\ufffdbbx_alice', shown as "�bbx_alice", not "ecila_xbb"
 * ```
 */
export function neutralizeText(text: string): string {
  return text.replace(CONTROL_CHARACTERS, ' ').replace(HIDING_CHARACTERS, '\ufffd');
}
