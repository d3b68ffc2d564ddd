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

/** Punctuation between two letters or digits: `-` in `wi-fi`, `.` in `db.prod`, `'` in `o'neil`. */
const INNER_PUNCTUATION = /(?<=[\p{L}\p{N}])[^\p{L}\p{N}\s]+(?=[\p{L}\p{N}])/gu;

/**
 * A folded text with the punctuation inside its words left out, the second form search compares:
 * `wifi` finds "Office Wi-Fi", `wi-fi` finds "WiFi".
 *
 * @param folded A text folded with {@link foldLabel}.
 * @returns The text without punctuation between letters or digits (`office wifi`).
 */
export function joinWordParts(folded: string): string {
  return folded.replace(INNER_PUNCTUATION, '');
}

/**
 * The longest search text, in characters (Unicode code points): the Vaultline server refuses
 * longer ones (400), the core's search refuses them before sending, and adapters (the Slack bot)
 * check it up front. The one search-length limit.
 */
export const MAX_SEARCH_LENGTH = 100;

/**
 * Characters that break a line or drive a terminal: controls (`Cc`: C0, C1, DEL) and the line and
 * paragraph separators (`Zl`, `Zp`).
 */
const BREAKING = /[\p{Cc}\p{Zl}\p{Zp}]/u;

/**
 * The one rule for text from outside: every character that breaks a line, drives a terminal, or
 * cannot be seen. That is every control (`Cc`), line and paragraph separator (`Zl`, `Zp`) and format
 * character (`Cf`: soft hyphen U+00AD, zero-width characters, word joiner and invisible operators
 * U+2060–2064, directional marks, embeddings, overrides and isolates, the byte order mark, Unicode
 * tag characters U+E0001–E007F, …), and the fillers that show as nothing: the Hangul fillers
 * (U+115F, U+1160, U+3164, U+FFA0), the combining grapheme joiner (U+034F), the Khmer inherent
 * vowels (U+17B4, U+17B5) and the Braille blank (U+2800).
 */
// biome-ignore lint/suspicious/noMisleadingCharacterClass: each one is matched alone, combining ones too.
const UNSAFE_CHARACTERS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u034f\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0]/gu;

/**
 * Replaces every character of {@link neutralizeText}'s rule (controls, line and paragraph
 * separators, format characters such as U+202E, U+200B, U+00AD or the tag characters, and the
 * invisible fillers such as U+3164), each by what `replace` gives for it. Every surface that shows
 * or keeps text from outside uses this one rule, rendered its own way: the server's error texts and
 * the Slack bot through {@link neutralizeText}, attachment names drop them, a terminal shows them
 * escaped.
 *
 * @param text The text.
 * @param replace What stands for one such character (one code point, possibly outside the BMP).
 * @returns The text with each such character replaced.
 * @example
 * ```ts
 * replaceUnsafeCharacters('a\u00adb', (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`); // 'a\\u{ad}b'
 * ```
 */
export function replaceUnsafeCharacters(text: string, replace: (char: string) => string): string {
  return text.replace(UNSAFE_CHARACTERS, replace);
}

/**
 * Whether a character breaks a line or drives a terminal (`Cc`, `Zl`, `Zp`) rather than hides.
 *
 * @param char One character, as {@link replaceUnsafeCharacters} hands it.
 * @returns True for a control or a line or paragraph separator.
 */
export function isLineBreaking(char: string): boolean {
  return BREAKING.test(char);
}

const neutral = (char: string): string => (BREAKING.test(char) ? ' ' : '\ufffd');

/**
 * Makes text from outside (a value a client sent, a label from a vault) inert wherever it is shown,
 * by the rule of {@link replaceUnsafeCharacters}: control characters and line breaks become spaces
 * (no fake lines, no terminal escapes), and characters that reorder or hide text (bidirectional
 * controls such as U+202E, zero-width and other format characters, tag characters, the Hangul
 * fillers) become U+FFFD, visibly. Each character (code point) stands for one.
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
  return text.replace(UNSAFE_CHARACTERS, neutral);
}
