import { foldLabel } from '@vaultline/protocol';
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

/** Escapes `%`, `_` and `\` for a LIKE pattern. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}
