/**
 * The path codec: how write data, id lists and raw values travel in the URL path. Pure, no I/O.
 *
 * @see ../../../../docs/spec.md §4.1
 * @module
 */

import { VaultError } from '../errors.ts';
import { base64ToBytes, bytesToBase64 } from '../internal/base64.ts';

const utf8Encoder = /* @__PURE__ */ new TextEncoder();
const utf8Decoder = /* @__PURE__ */ new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function invalid(message: string): VaultError {
  return new VaultError('invalid_request', message);
}

/**
 * Encodes one value: UTF-8, then base64, then `+`→`-` and `/`→`_` (with `=` padding, as the spec
 * gives it; servers accept it with or without).
 *
 * @param value The value.
 * @returns The encoded value; never contains `;`, `/`, `+` or `%`.
 * @example
 * ```ts
 * encodeValue('p@ss/word?'); // 'cEBzcy93b3JkPw=='
 * ```
 */
export function encodeValue(value: string): string {
  return bytesToBase64(utf8Encoder.encode(value), true, true);
}

/**
 * Decodes one value. Accepts `-`/`_` and `+`/`/`, with or without padding.
 *
 * @param encoded The encoded value.
 * @returns The value.
 * @throws {VaultError} `invalid_request` when it is not base64 of UTF-8 text.
 */
export function decodeValue(encoded: string): string {
  const bytes = base64ToBytes(encoded);
  // Never quote the value: it may be a password.
  if (bytes === undefined)
    throw invalid(`Expected a base64url value, received ${encoded.length} characters that are not base64.`);
  try {
    return utf8Decoder.decode(bytes);
  } catch {
    throw invalid('Expected base64 of UTF-8 text, received bytes that are not UTF-8.');
  }
}

/**
 * Encodes a list of values, each on its own, joined by `;`.
 *
 * @param values The values.
 * @returns The path segment.
 */
export function encodeValueList(values: readonly string[]): string {
  return values.map(encodeValue).join(';');
}

/**
 * Decodes a list of separately encoded values.
 *
 * @param segment The path segment.
 * @param count The number of values expected.
 * @param what What the list describes, for the error message.
 * @returns The values.
 * @throws {VaultError} `invalid_request` on a wrong count or a value that does not decode.
 */
export function decodeValueList(segment: string, count: number, what: string): string[] {
  const parts = segment.split(';');
  if (parts.length !== count) {
    throw invalid(`Expected ${count} ${what} values separated by ';', received ${parts.length}.`);
  }
  return parts.map(decodeValue);
}

/** The nine item values in the order the API sends them. */
export const ITEM_VALUE_NAMES = [
  'label',
  'password',
  'description',
  'folderId',
  'login',
  'email',
  'url',
  'tags',
  'anyoneCanModify',
] as const;

/** An item as it is written: what add/item and update/item carry. */
export interface ItemWrite {
  /** The label; required, unique up to case, accents and trailing spaces. */
  label: string;
  /** The password. */
  password: string;
  /** The description. */
  description?: string | undefined;
  /** The folder that holds the item. */
  folderId: number;
  /** The login. */
  login?: string | undefined;
  /** The email. */
  email?: string | undefined;
  /** The URL. */
  url?: string | undefined;
  /** Tags: a list, or one string with tags separated by spaces. */
  tags?: readonly string[] | string | undefined;
  /** Whether anyone with access may modify the item. */
  anyoneCanModify?: boolean | undefined;
}

/** The nine item values as decoded text, in {@link ITEM_VALUE_NAMES} order. */
export type ItemValues = Record<(typeof ITEM_VALUE_NAMES)[number], string>;

/**
 * Turns an item into its nine values.
 *
 * @param item The item.
 * @returns The values, in API order.
 */
export function itemToValues(item: ItemWrite): string[] {
  const tags = typeof item.tags === 'string' ? item.tags : (item.tags ?? []).join(' ');
  return [
    item.label,
    item.password,
    item.description ?? '',
    String(item.folderId),
    item.login ?? '',
    item.email ?? '',
    item.url ?? '',
    tags,
    item.anyoneCanModify ? '1' : '0',
  ];
}

/**
 * Encodes the nine item values of add/item and update/item.
 *
 * @param item The item.
 * @returns The path segment: nine encoded values joined by `;`.
 */
export function encodeItemValues(item: ItemWrite): string {
  return encodeValueList(itemToValues(item));
}

/**
 * Decodes the nine item values of add/item and update/item.
 *
 * @param segment The path segment.
 * @returns The values as text.
 * @throws {VaultError} `invalid_request` when there are not nine values or one does not decode.
 */
export function decodeItemValues(segment: string): ItemValues {
  const values = decodeValueList(segment, ITEM_VALUE_NAMES.length, 'item');
  const out = {} as ItemValues;
  ITEM_VALUE_NAMES.forEach((name, i) => {
    out[name] = values[i]!;
  });
  return out;
}

/** How folder values travel: one base64url blob of the `;`-joined values (what TeamPass requires), or each value encoded on its own. */
export type FolderEncoding = 'blob' | 'values';

/**
 * Encodes folder values (add/folder: five, update/folder: three).
 *
 * @param values The values as text.
 * @param encoding The form; `blob` by default, the only one real TeamPass servers accept.
 * @returns The path segment.
 * @throws {VaultError} `invalid_request` when a value holds `;` in the blob form.
 */
export function encodeFolderValues(values: readonly string[], encoding: FolderEncoding = 'blob'): string {
  if (encoding === 'values') return encodeValueList(values);
  if (values.some((value) => value.includes(';'))) {
    throw invalid("Folder values cannot contain ';' in the blob form that TeamPass servers require.");
  }
  return encodeValue(values.join(';'));
}

/**
 * Decodes folder values in either form. A blob never contains a raw `;`, so the forms are told
 * apart without ambiguity.
 *
 * @param segment The path segment.
 * @param count The number of values expected (5 for add, 3 for update).
 * @returns The values as text.
 * @throws {VaultError} `invalid_request` on a wrong count or a value that does not decode.
 */
export function decodeFolderValues(segment: string, count: number): string[] {
  if (segment.includes(';')) return decodeValueList(segment, count, 'folder');
  const values = decodeValue(segment).split(';');
  if (values.length !== count) {
    throw invalid(`Expected ${count} folder values separated by ';', received ${values.length}.`);
  }
  return values;
}

/** The largest id the codec accepts: ids are positive integers that fit a PostgreSQL bigint and a JS number. */
export const MAX_ID: number = Number.MAX_SAFE_INTEGER;

/**
 * Tells whether a number is a valid id.
 *
 * @param id The number.
 * @returns Whether it is a positive safe integer.
 */
export function isValidId(id: number): boolean {
  return Number.isSafeInteger(id) && id > 0;
}

/**
 * Encodes one plain id.
 *
 * @param id The id.
 * @returns The path segment.
 * @throws {VaultError} `invalid_request` when it is not a positive integer.
 */
export function encodeId(id: number): string {
  if (!isValidId(id)) throw invalid(`Expected a positive integer id, received ${describe(String(id))}.`);
  return String(id);
}

/** The canonical spelling of an id: what {@link encodeId} writes; `1`, never `01`, ` 1`, `+1` or `1.0`. */
const CANONICAL_ID = /^[1-9][0-9]{0,15}$/;

/**
 * Reads an id in its one canonical spelling: decimal digits without a leading zero, sign, space,
 * fraction or exponent, at most {@link MAX_ID}. So `decodeId(s)` succeeds exactly when
 * `encodeId(decodeId(s)) === s`: one id has one spelling, in paths and inside values alike
 * (leading zeros are refused because `01` would be a second spelling of `1`).
 *
 * @param text The text.
 * @returns The id, or `undefined` when the text is not a canonical id.
 * @example
 * ```ts
 * parseId('42'); // 42
 * parseId('042'); // undefined
 * parseId('1 '); // undefined
 * ```
 */
export function parseId(text: string): number | undefined {
  if (!CANONICAL_ID.test(text)) return undefined;
  const id = Number(text);
  return isValidId(id) ? id : undefined;
}

/**
 * Decodes one plain id (a path segment): the canonical spelling only, see {@link parseId}.
 *
 * @param segment The path segment.
 * @returns The id.
 * @throws {VaultError} `invalid_request` when it is not a canonical positive integer.
 */
export function decodeId(segment: string): number {
  const id = parseId(segment);
  if (id === undefined) {
    throw invalid(`Expected an id (digits, no sign, space or leading 0), received ${describe(segment)}.`);
  }
  return id;
}

/**
 * Decodes an id carried inside a value (the folder of an item, the parent of a folder, after
 * base64 decoding): the same canonical spelling as {@link decodeId}, so `"1 "`, `"+1"` and
 * `"1.0"` are refused there too.
 *
 * @param value The decoded value.
 * @param what The value's name for the error message, e.g. `folder_id`.
 * @param options `allowZero`: accept `0` (the root, as a folder's parent).
 * @returns The id (or 0).
 * @throws {VaultError} `invalid_request` naming the value when it is not a canonical id.
 */
export function decodeIdValue(value: string, what: string, options: { allowZero?: boolean } = {}): number {
  if (options.allowZero && value === '0') return 0;
  const id = parseId(value);
  if (id === undefined) {
    throw invalid(
      `Expected ${what} to be an id${options.allowZero ? ' or 0' : ''} (digits, no sign, space or leading 0), received ${describe(value)}.`,
    );
  }
  return id;
}

/**
 * Encodes a list of plain ids joined by `;`.
 *
 * @param ids The ids; at least one.
 * @returns The path segment.
 * @throws {VaultError} `invalid_request` when the list is empty or an id is invalid.
 */
export function encodeIdList(ids: readonly number[]): string {
  if (ids.length === 0) throw invalid('Expected at least one id, received none.');
  return ids.map(encodeId).join(';');
}

/**
 * Decodes a list of plain ids separated by `;`.
 *
 * @param segment The path segment.
 * @returns The ids, in order, duplicates kept.
 * @throws {VaultError} `invalid_request` when an id is not a positive integer.
 */
export function decodeIdList(segment: string): number[] {
  return segment.split(';').map(decodeId);
}

/** Characters a raw segment keeps as they are: RFC 3986 `pchar` without `%`. */
const RAW_SAFE = /^[A-Za-z0-9\-._~!$&'()*+,;=:@]$/;

/**
 * Encodes a raw value (a login, a search string): sent as it is, not base64. Only characters that
 * a URL cannot carry are percent-encoded (space, `%`, non-ASCII); real TeamPass servers never
 * percent-decode, so they only understand `[A-Za-z0-9_:'-]` here.
 *
 * @param value The value.
 * @param what What the value is, for the error message.
 * @returns The path segment.
 * @throws {VaultError} `invalid_request` when empty or when it holds `/`, `\`, `?`, `#` or control characters.
 */
export function encodeRawSegment(value: string, what: string): string {
  if (value.length === 0) throw invalid(`Expected a non-empty ${what}, received an empty one.`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused.
  if (/[/\\?#\u0000-\u001f\u007f]/.test(value)) {
    throw invalid(`A ${what} cannot contain '/', '\\', '?', '#' or control characters.`);
  }
  // URL parsers drop dot segments (and their %2E spellings): the request would reach another path.
  if (value === '.' || value === '..') throw invalid(`A ${what} cannot be '.' or '..'.`);
  let out = '';
  for (const char of value) out += RAW_SAFE.test(char) ? char : encodeURIComponent(char);
  return out;
}

/**
 * Decodes a raw segment: percent-decoding, which real TeamPass servers skip.
 *
 * @param segment The path segment.
 * @param what What the value is, for the error message.
 * @returns The value.
 * @throws {VaultError} `invalid_request` on malformed percent-encoding or an empty value.
 */
export function decodeRawSegment(segment: string, what: string): string {
  let value: string;
  try {
    value = decodeURIComponent(segment);
  } catch {
    throw invalid(`Expected a ${what} with valid percent-encoding, received ${describe(segment)}.`);
  }
  if (value.length === 0) throw invalid(`Expected a non-empty ${what}, received an empty one.`);
  return value;
}

/** Shows a received value in an error message: quoted, cut short. */
function describe(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}
