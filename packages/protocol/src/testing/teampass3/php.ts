/**
 * The few PHP semantics TeamPass 3's API leans on, so that the fake reads parameters and writes
 * answers the way PHP does: `(int)` casts, `empty()`, `trim()`, `strip_tags()`, `parse_str()`,
 * `json_encode()` (escaped slashes and `\uXXXX`), the `filter_var` sanitizers, and the
 * `utf8mb4_unicode_ci` comparisons of MariaDB.
 *
 * @module
 */

import { decode } from 'html-entities';
import { escapeLikeTeamPass, escapeSpecialCharsLikeTeamPass } from '../../teampass3/html.ts';

/** A parameter value as PHP sees it after decoding a request. */
export type PhpValue = string | number | boolean | null | PhpValue[] | { [key: string]: PhpValue };

/** The parameters of a request, by name. */
export type PhpParams = Record<string, PhpValue>;

const PHP_SPACE = ' \t\n\r\0\x0B';

/**
 * PHP `trim()` with its default character list.
 *
 * @param text The text.
 * @returns The text without leading and trailing PHP whitespace.
 */
export function phpTrim(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && PHP_SPACE.includes(text[start]!)) start++;
  while (end > start && PHP_SPACE.includes(text[end - 1]!)) end--;
  return text.slice(start, end);
}

const LEADING_NUMBER = /^[ \t\n\r\v\f]*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)/;

/**
 * PHP `(int)` cast: `"12abc"` is 12, `"abc"` is 0, `"1e3"` is 1000, `true` is 1, an array is 0
 * or 1.
 *
 * @param value The value.
 * @returns The integer.
 */
export function phpInt(value: PhpValue | undefined): number {
  if (value === undefined || value === null || value === false) return 0;
  if (value === true) return 1;
  if (typeof value === 'number') return Number.isFinite(value) ? Math.trunc(value) : 0;
  if (typeof value === 'string') {
    const match = LEADING_NUMBER.exec(value);
    if (!match) return 0;
    const n = Math.trunc(Number(match[1]));
    return Number.isFinite(n) ? n : 0;
  }
  return Object.keys(value).length > 0 ? 1 : 0;
}

/**
 * PHP `(string)` cast: numbers as PHP prints them, `true` as `1`, `false` and `null` as ``,
 * arrays as `Array`.
 *
 * @param value The value.
 * @returns The text.
 */
export function phpString(value: PhpValue | undefined): string {
  if (value === undefined || value === null || value === false) return '';
  if (value === true) return '1';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value;
  return 'Array';
}

/**
 * PHP `isset()` on a parameter: present and not `null`.
 *
 * @param value The value.
 * @returns Whether it is set.
 */
export function phpIsset(value: PhpValue | undefined): boolean {
  return value !== undefined && value !== null;
}

/**
 * PHP `empty()`: absent, `null`, `false`, `0`, `""`, `"0"` or an empty array.
 *
 * @param value The value.
 * @returns Whether it is empty.
 */
export function phpEmpty(value: PhpValue | undefined): boolean {
  if (
    value === undefined ||
    value === null ||
    value === false ||
    value === 0 ||
    value === '' ||
    value === '0'
  )
    return true;
  if (typeof value === 'object') return Object.keys(value).length === 0;
  return false;
}

/**
 * PHP `is_numeric()`.
 *
 * @param value The value.
 * @returns Whether PHP takes it for a number.
 */
export function phpIsNumeric(value: PhpValue | undefined): boolean {
  if (typeof value === 'number') return true;
  return (
    typeof value === 'string' &&
    /^[ \t\n\r\v\f]*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?[ \t\n\r\v\f]*$/.test(value)
  );
}

/**
 * PHP `strip_tags()`, close enough: removes `<tag …>` and comments; a `<` followed by a space is
 * kept as text.
 *
 * @param text The text.
 * @returns The text without tags.
 */
export function phpStripTags(text: string): string {
  return text.replace(/<!--[\s\S]*?(?:-->|$)/g, '').replace(/<[^\s<>][^>]*(?:>|$)/g, '');
}

/**
 * PHP `htmlspecialchars()` with its default flags since PHP 8.1 (`ENT_QUOTES`): `&` `"` `'` `<`
 * `>` become `&amp;` `&quot;` `&#039;` `&lt;` `&gt;`, double encoding on.
 *
 * @param text The text.
 * @returns The escaped text.
 */
export const phpHtmlSpecialChars: (text: string) => string = escapeSpecialCharsLikeTeamPass;

/**
 * `filter_var(…, FILTER_SANITIZE_FULL_SPECIAL_CHARS)`: `htmlentities()` with `ENT_QUOTES`, the
 * HTML 4.01 table and no double encoding (every character HTML 4.01 names becomes its entity,
 * `'` becomes `&#039;`, other characters stay as typed).
 *
 * @param text The text.
 * @returns The escaped text.
 */
export const phpFullSpecialChars: (text: string) => string = escapeLikeTeamPass;

/**
 * PHP `htmlspecialchars_decode()` with `ENT_QUOTES`: only the five special characters.
 *
 * @param text The text.
 * @returns The decoded text.
 */
export function phpHtmlSpecialCharsDecode(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#0?39);/g, (_, entity: string) => SPECIAL[entity]!);
}

const SPECIAL: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  '#039': "'",
  '#39': "'",
};

/**
 * PHP `stripslashes()`.
 *
 * @param text The text.
 * @returns The text with backslash escapes removed.
 */
export function phpStripSlashes(text: string): string {
  return text.replace(/\\(.?)/g, '$1');
}

/**
 * PHP `html_entity_decode()` with its default flags (`ENT_QUOTES`, HTML 4.01): the HTML 4.01
 * named entities and numeric ones.
 *
 * @param text The text.
 * @returns The decoded text.
 */
export function phpHtmlEntityDecode(text: string): string {
  if (!text.includes('&')) return text;
  // `&apos;` is no HTML 4.01 entity (the library's HTML 4 level knows it): it stays as written.
  return decode(text.replace(/&apos;/g, '&amp;apos;'), { level: 'html4', scope: 'strict' });
}

/**
 * The sanitizer TeamPass applies to folder titles and logins at sign-in (`trim|escape`):
 * `htmlspecialchars(strip_tags(trim(text)))`.
 *
 * @param text The text.
 * @returns The sanitized text.
 */
export function phpTrimEscape(text: string): string {
  return phpHtmlSpecialChars(phpStripTags(phpTrim(text)));
}

/**
 * `filter_var(…, FILTER_SANITIZE_EMAIL)`: keeps ASCII letters, digits and
 * ``!#$%&'*+-=?^_`{|}~@.[]``.
 *
 * @param text The text.
 * @returns The sanitized text.
 */
export function phpSanitizeEmail(text: string): string {
  return text.replace(/[^A-Za-z0-9!#$%&'*+\-=?^_`{|}~@.[\]]/g, '');
}

/**
 * `filter_var(…, FILTER_SANITIZE_URL)`: keeps ASCII letters, digits and
 * ``$-_.+!*'(),{}|\^~[]`<>#%";/?:@&=``.
 *
 * @param text The text.
 * @returns The sanitized text.
 */
export function phpSanitizeUrl(text: string): string {
  return text.replace(/[^A-Za-z0-9$\-_.+!*'(),{}|\\^~[\]`<>#%";/?:@&=]/g, '');
}

/**
 * PHP `urldecode()`: `+` is a space, `%XX` a byte (a malformed `%` is kept as is; bytes that are
 * not UTF-8 become U+FFFD, where PHP would keep them).
 *
 * @param text The text.
 * @returns The decoded text.
 */
export function phpUrlDecode(text: string): string {
  return text
    .replace(/\+/g, ' ')
    .replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8'));
}

/**
 * PHP `parse_str()`: `a=1&b[]=2&b[]=3&c[x]=4`, `+` as a space; dots and spaces in top-level
 * names become `_`.
 *
 * @param query The query string or form body.
 * @returns The parameters.
 */
export function phpParseStr(query: string): PhpParams {
  const out: PhpParams = {};
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawName = phpUrlDecode(eq < 0 ? pair : pair.slice(0, eq));
    const value = phpUrlDecode(eq < 0 ? '' : pair.slice(eq + 1));
    const bracket = rawName.indexOf('[');
    const base = (bracket < 0 ? rawName : rawName.slice(0, bracket)).replace(/[. ]/g, '_');
    if (base === '') continue;
    if (bracket < 0 || !rawName.endsWith(']')) {
      out[base] = value;
      continue;
    }
    const key = rawName.slice(bracket + 1, rawName.indexOf(']', bracket));
    const current = out[base];
    if (Array.isArray(current) && key === '') current.push(value);
    else if (key === '') out[base] = [value];
    else {
      const target =
        typeof current === 'object' && current !== null && !Array.isArray(current) ? current : {};
      target[key] = value;
      out[base] = target;
    }
  }
  return out;
}

/**
 * Trims every string of a parameter tree (TeamPass's `trimParams` for form and query values).
 *
 * @param params The parameters.
 * @returns The trimmed parameters.
 */
export function phpTrimParams(params: PhpParams): PhpParams {
  const trimValue = (value: PhpValue): PhpValue => {
    if (typeof value === 'string') return phpTrim(value);
    if (Array.isArray(value)) return value.map(trimValue);
    if (typeof value === 'object' && value !== null) return phpTrimParams(value);
    return value;
  };
  return Object.fromEntries(Object.entries(params).map(([key, value]) => [key, trimValue(value)]));
}

/**
 * PHP `json_encode()` with its default flags: `/` as `\/`, every non-ASCII character as
 * `\uXXXX` (lower-case hex, surrogate pairs for astral characters).
 *
 * @param value The value.
 * @returns The JSON text.
 */
export function phpJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/\//g, '\\/')
    .replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Folds text the way MariaDB's `utf8mb4_unicode_ci` compares it: case and accents ignored.
 *
 * @param text The text.
 * @returns The folded text.
 */
export function collationFold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/**
 * MariaDB `a = b` under `utf8mb4_unicode_ci` (PAD SPACE: trailing spaces do not count).
 *
 * @param a One text.
 * @param b The other.
 * @returns Whether they are equal.
 */
export function collationEquals(a: string, b: string): boolean {
  return collationFold(a).replace(/ +$/, '') === collationFold(b).replace(/ +$/, '');
}

/**
 * MariaDB `haystack LIKE '%needle%'` under `utf8mb4_unicode_ci`, the needle's `%` and `_`
 * escaped (TeamPass escapes them).
 *
 * @param haystack The column value.
 * @param needle The searched text.
 * @returns Whether it matches.
 */
export function collationContains(haystack: string, needle: string): boolean {
  return collationFold(haystack).includes(collationFold(needle));
}

/**
 * Compares two texts in `utf8mb4_unicode_ci` order, for `ORDER BY`.
 *
 * @param a One text.
 * @param b The other.
 * @returns Negative, zero or positive.
 */
export function collationCompare(a: string, b: string): number {
  const fa = collationFold(a);
  const fb = collationFold(b);
  return fa < fb ? -1 : fa > fb ? 1 : 0;
}

/**
 * A rough stand-in for the AntiXSS cleaning TeamPass applies to descriptions: drops `<script>`
 * and `<style>` elements, `on…=` event attributes and `javascript:` URLs, writes comments and an
 * unclosed `<` as `&lt;` `&gt;`, keeps other markup.
 *
 * @param html The description.
 * @returns The cleaned description.
 */
export function xssClean(html: string): string {
  return html
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<(script|style)\b[^>]*>/gi, '')
    .replace(/\s+on[a-z]+\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/gi, '')
    .replace(/javascript\s*:/gi, '')
    .replace(/<!--([\s\S]*?)-->/g, '&lt;!--$1--&gt;')
    .replace(/<(?![\s.,\d=%$€£¥/])([^<>]*)(?=<|$)/g, '&lt;$1');
}
