import { foldLabel, joinWordParts } from '@vaultline/protocol';
import { invalid } from './errors.ts';

// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL cannot be stored in PostgreSQL text.
const NUL = /\u0000/;

/**
 * Checks a text value before it reaches the database: length and no NUL character.
 *
 * @param value The value.
 * @param what Its name, for the message.
 * @param max The longest allowed, in characters.
 * @returns The value.
 */
export function checkText(value: string, what: string, max: number): string {
  if (value.length > max)
    throw invalid(`Expected ${what} of at most ${max} characters, received ${value.length}.`);
  if (NUL.test(value)) throw invalid(`Expected ${what} without NUL characters.`);
  return value;
}

/** The form in which labels are compared for similarity: the core's {@link foldLabel}. */
export const labelKey = foldLabel;

/**
 * The text find/item looks for words in: the label, login and URL, each folded with the core's
 * {@link foldLabel}, one per line, and again without the punctuation inside words (the core's
 * {@link joinWordParts}: `wifi` finds "Wi-Fi") where that differs. A search word never holds white
 * space, so it never spans two values; and the key is never empty, which marks an item whose key
 * is still to be filled in.
 */
export function searchKey(values: { label: string; login: string; url: string }): string {
  return foldedForms([values.label, values.login, values.url]).join('\n');
}

/**
 * Texts folded as search compares them: each folded, and after it its form without the
 * punctuation inside words when that differs.
 */
export function foldedForms(texts: readonly string[]): string[] {
  return texts.flatMap((text) => {
    const folded = foldLabel(text);
    const joined = joinWordParts(folded);
    return joined === folded ? [folded] : [folded, joined];
  });
}

/** Escapes `%`, `_` and `\` for a LIKE pattern. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}
