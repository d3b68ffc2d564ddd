/**
 * The reference grammar: `vaultline://[<connection>@]<item id>/<field>` and
 * `vaultline://[<connection>@]<folder>/…/<label>/<field>`. Pure, host-free (no Node built-ins):
 * runs in a browser or a web worker.
 *
 * @see ../../../../docs/references.md
 * @module
 */

import { decodeId, isValidId } from '../legacy/codec.ts';
import { VaultReferenceError } from './reference-error.ts';

/** The scheme every reference starts with. */
export const REFERENCE_SCHEME = 'vaultline://';

/** The stored item values a reference can name. */
export const REFERENCE_FIELDS = ['password', 'login', 'email', 'url', 'description', 'label'] as const;

/**
 * The field that names an item's current one-time code (TOTP), computed when the reference is
 * resolved, on servers that have them (`capabilities().otp`). Not a stored value, so not in
 * {@link REFERENCE_FIELDS} (lists of an item's values leave it out).
 */
export const OTP_FIELD = 'otp';

/** An item value a reference can name: a stored value, or the current one-time code. */
export type ReferenceFieldName = (typeof REFERENCE_FIELDS)[number] | typeof OTP_FIELD;

/** Every field name a reference may hold, for messages. */
const FIELD_NAMES: readonly string[] = [...REFERENCE_FIELDS, OTP_FIELD];

/** The prefix of a field that names an attachment: `file:<name>`. */
export const FILE_FIELD_PREFIX = 'file:';

/** The longest reference accepted, in characters. */
export const MAX_REFERENCE_LENGTH = 2048;

/** The most folders a path may name (the server allows 32 levels). */
export const MAX_REFERENCE_DEPTH = 32;

/** What a reference reads: an item value by name, or an attachment by file name. */
export type ReferenceField = ReferenceFieldName | { readonly file: string };

/** Fields shared by both forms. */
interface ReferenceBase {
  /** The named connection (for people with several vaults); the default one when absent. */
  readonly connection?: string | undefined;
  /** What to read. */
  readonly field: ReferenceField;
}

/** A reference by item id: stable across renames and moves. */
export interface IdReference extends ReferenceBase {
  /** The form. */
  readonly kind: 'id';
  /** The item id. */
  readonly id: number;
}

/** A reference by folder path and label: readable. */
export interface PathReference extends ReferenceBase {
  /** The form. */
  readonly kind: 'path';
  /** The folder titles from the root down to the item's folder; at least one. */
  readonly folders: readonly string[];
  /** The item's label. */
  readonly label: string;
}

/** A reference to one value of one item. */
export type Reference = IdReference | PathReference;

const utf8Encoder = /* @__PURE__ */ new TextEncoder();
const utf8Decoder = /* @__PURE__ */ new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
const HEX = '0123456789ABCDEF';

/**
 * Escapes one segment: every UTF-8 byte outside RFC 3986's unreserved set (`A-Z a-z 0-9 - . _ ~`)
 * becomes `%XX` (upper-case hex); a segment made only of dots is escaped whole, so that no URL
 * tool reads it as `.` or `..`.
 *
 * @param text The title, label, file or connection name; not empty.
 * @returns The escaped segment.
 */
export function escapeReferenceSegment(text: string): string {
  if (/^\.+$/.test(text)) return '%2E'.repeat(text.length);
  let out = '';
  for (const char of text) {
    if (UNRESERVED.test(char)) {
      out += char;
      continue;
    }
    for (const byte of utf8Encoder.encode(char)) out += `%${HEX[byte >> 4]}${HEX[byte & 15]}`;
  }
  return out;
}

/** Characters a segment may not hold raw, even in the lenient input parseReference accepts. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it rejects.
const FORBIDDEN_RAW = /[\x00-\x1f\x7f/]/;

function excerpt(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

function quote(text: string): string {
  return JSON.stringify(excerpt(text));
}

function invalid(text: string, message: string, offset?: number): VaultReferenceError {
  return new VaultReferenceError('invalid_reference', excerpt(text), `${quote(text)}: ${message}`, {
    offset,
  });
}

/**
 * Unescapes one segment. `%XX` escapes must be well formed and spell UTF-8; other characters are
 * taken as they are (so a hand-written `prod db` and `prod%20db` mean the same), except control
 * characters.
 */
function unescapeSegment(segment: string, text: string, offset: number, what: string): string {
  if (segment === '') throw invalid(text, `Expected a ${what}, found an empty segment.`, offset);
  const raw = FORBIDDEN_RAW.exec(segment);
  if (raw)
    throw invalid(text, `A ${what} cannot hold control characters; escape them as %XX.`, offset + raw.index);
  if (!segment.isWellFormed()) throw invalid(text, `A ${what} must be well-formed Unicode.`, offset);
  if (!segment.includes('%')) return segment;
  const bytes: number[] = [];
  let out = '';
  const flush = (at: number): void => {
    if (bytes.length === 0) return;
    try {
      out += utf8Decoder.decode(new Uint8Array(bytes));
    } catch {
      throw invalid(text, `The %XX escapes of a ${what} must spell UTF-8 text.`, at);
    }
    bytes.length = 0;
  };
  for (let i = 0; i < segment.length; ) {
    if (segment[i] === '%') {
      const hex = segment.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex))
        throw invalid(text, 'Expected two hex digits after %; write % itself as %25.', offset + i);
      bytes.push(Number.parseInt(hex, 16));
      i += 3;
      continue;
    }
    flush(offset + i);
    const char = String.fromCodePoint(segment.codePointAt(i)!);
    out += char;
    i += char.length;
  }
  flush(offset + segment.length);
  if (out === '') throw invalid(text, `Expected a ${what}, found an empty segment.`, offset);
  return out;
}

/**
 * Tells whether text starts like a reference (`vaultline://`). Cheap; does not validate.
 *
 * @param text The text.
 * @returns Whether it starts with the scheme.
 */
export function isReference(text: string): boolean {
  return text.startsWith(REFERENCE_SCHEME);
}

/**
 * Parses a reference. The canonical form (what {@link formatReference} writes) escapes every
 * character outside `A-Z a-z 0-9 - . _ ~` as `%XX`; hand-written references may also hold spaces
 * and non-ASCII characters raw. `/` and `%` in a name must always be escaped.
 *
 * @param text The reference, e.g. `vaultline://42/password`.
 * @returns The reference.
 * @throws {VaultReferenceError} `invalid_reference` when it does not follow the grammar;
 *   `unknown_field` when the field is not one of {@link REFERENCE_FIELDS}, `otp` or `file:<name>`.
 * @see ../../../../docs/references.md
 * @example
 * ```ts
 * parseReference('vaultline://Engineering/Databases/prod%20db/password');
 * // { kind: 'path', folders: ['Engineering', 'Databases'], label: 'prod db', field: 'password' }
 * ```
 */
export function parseReference(text: string): Reference {
  if (typeof text !== 'string') throw invalid(String(text), 'Expected a reference as text.');
  if (text.length > MAX_REFERENCE_LENGTH) {
    throw invalid(
      text,
      `A reference is at most ${MAX_REFERENCE_LENGTH} characters; this one has ${text.length}.`,
    );
  }
  if (!text.startsWith(REFERENCE_SCHEME))
    throw invalid(text, `Expected a reference starting with ${REFERENCE_SCHEME}.`, 0);
  const body = text.slice(REFERENCE_SCHEME.length);
  const segments = body.split('/');
  if (segments.length < 2)
    throw invalid(text, 'Expected <item id>/<field> or <folder>/…/<label>/<field> after vaultline://.');
  if (segments.length > MAX_REFERENCE_DEPTH + 2)
    throw invalid(text, `A reference names at most ${MAX_REFERENCE_DEPTH} folders.`);

  let offset = REFERENCE_SCHEME.length;
  const offsets = segments.map((segment) => {
    const start = offset;
    offset += segment.length + 1;
    return start;
  });

  let connection: string | undefined;
  const first = segments[0]!;
  const at = first.indexOf('@');
  if (at >= 0) {
    connection = unescapeSegment(first.slice(0, at), text, offsets[0]!, 'connection name');
    segments[0] = first.slice(at + 1);
    offsets[0] = offsets[0]! + at + 1;
  }

  const fieldIndex = segments.length - 1;
  const field = parseField(segments[fieldIndex]!, text, offsets[fieldIndex]!);
  const base = connection === undefined ? { field } : { connection, field };

  if (segments.length === 2) {
    const idText = segments[0]!;
    let id: number;
    try {
      id = decodeId(idText);
    } catch {
      throw invalid(
        text,
        'Expected an item id (digits) before the field, or a folder path and a label.',
        offsets[0],
      );
    }
    return { kind: 'id', id, ...base };
  }
  const names = segments
    .slice(0, fieldIndex)
    .map((segment, index) =>
      unescapeSegment(segment, text, offsets[index]!, index === fieldIndex - 1 ? 'label' : 'folder title'),
    );
  const label = names.pop()!;
  return { kind: 'path', folders: names, label, ...base };
}

function parseField(segment: string, text: string, offset: number): ReferenceField {
  if (segment.startsWith(FILE_FIELD_PREFIX)) {
    return { file: unescapeSegment(segment.slice(FILE_FIELD_PREFIX.length), text, offset + 5, 'file name') };
  }
  if (FIELD_NAMES.includes(segment)) return segment as ReferenceFieldName;
  if (segment === '') throw invalid(text, 'Expected a field after the last /.', offset);
  throw new VaultReferenceError(
    'unknown_field',
    excerpt(text),
    `${quote(text)}: unknown field ${quote(segment)}; expected one of ${FIELD_NAMES.join(', ')} or file:<name>.`,
    { offset },
  );
}

function requireName(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '')
    throw invalid(String(value), `Expected a non-empty ${what} to format a reference.`);
  if (!value.isWellFormed())
    throw invalid(value, `A ${what} must be well-formed Unicode (it holds a lone surrogate).`);
  return value;
}

/**
 * Writes a reference in its canonical form: every character outside `A-Z a-z 0-9 - . _ ~` in a
 * name is escaped as `%XX` (UTF-8), so the text has no spaces, quotes or non-ASCII characters and
 * {@link findReferences} finds it whole in any file.
 *
 * @param reference The reference.
 * @returns The text, e.g. `vaultline://Engineering/Databases/prod%20db/password`.
 * @throws {VaultReferenceError} `invalid_reference` for an invalid id, an empty name, too many
 *   folders or a result above {@link MAX_REFERENCE_LENGTH}; `unknown_field` for an unknown field.
 * @example
 * ```ts
 * formatReference({ kind: 'id', id: 42, field: 'password' }); // 'vaultline://42/password'
 * ```
 */
export function formatReference(reference: Reference): string {
  let out = REFERENCE_SCHEME;
  if (reference.connection !== undefined)
    out += `${escapeReferenceSegment(requireName(reference.connection, 'connection name'))}@`;
  if (reference.kind === 'id') {
    if (!isValidId(reference.id))
      throw invalid(String(reference.id), 'Expected a positive integer item id to format a reference.');
    out += String(reference.id);
  } else {
    if (reference.folders.length === 0)
      throw invalid('', 'A reference by path names at least one folder; use the item id for others.');
    if (reference.folders.length > MAX_REFERENCE_DEPTH)
      throw invalid('', `A reference names at most ${MAX_REFERENCE_DEPTH} folders.`);
    for (const title of reference.folders)
      out += `${escapeReferenceSegment(requireName(title, 'folder title'))}/`;
    out += escapeReferenceSegment(requireName(reference.label, 'label'));
  }
  out += `/${formatField(reference.field)}`;
  if (out.length > MAX_REFERENCE_LENGTH)
    throw invalid(
      out,
      `A reference is at most ${MAX_REFERENCE_LENGTH} characters; this one would have ${out.length}.`,
    );
  return out;
}

function formatField(field: ReferenceField): string {
  if (typeof field === 'object')
    return FILE_FIELD_PREFIX + escapeReferenceSegment(requireName(field.file, 'file name'));
  if (!FIELD_NAMES.includes(field)) {
    throw new VaultReferenceError(
      'unknown_field',
      excerpt(String(field)),
      `Unknown field ${quote(String(field))}; expected one of ${FIELD_NAMES.join(', ')} or a file.`,
    );
  }
  return field;
}

/** What {@link referenceToItem} needs of an item. */
export interface ReferableItem {
  /** The item id. */
  readonly id: number;
  /** The label. */
  readonly label: string;
  /** The folder path, root first (as the client's `Item.path`). */
  readonly path: readonly string[];
}

/** Options of {@link referenceToItem}. */
export interface ReferenceToItemOptions {
  /** `id` (stable, the default) or `path` (readable; falls back to the id when the path is unknown). */
  form?: 'id' | 'path' | undefined;
  /** The named connection to write into the reference. */
  connection?: string | undefined;
}

/**
 * Builds the reference to a field of an item, for "insert reference" actions.
 *
 * @param item The item.
 * @param field The field.
 * @param options The form and connection.
 * @returns The reference.
 * @example
 * ```ts
 * formatReference(referenceToItem(item, 'password', { form: 'path' }));
 * ```
 */
export function referenceToItem(
  item: ReferableItem,
  field: ReferenceField,
  options: ReferenceToItemOptions = {},
): Reference {
  const base = options.connection === undefined ? { field } : { field, connection: options.connection };
  const usablePath =
    item.path.length > 0 &&
    item.path.length <= MAX_REFERENCE_DEPTH &&
    item.path.every((title) => title !== '');
  if (options.form === 'path' && usablePath && item.label !== '')
    return { kind: 'path', folders: [...item.path], label: item.label, ...base };
  return { kind: 'id', id: item.id, ...base };
}

/**
 * The text of a field, for messages: `password`, or `file:<name>`.
 *
 * @param field The field.
 * @returns Its canonical text.
 */
export function fieldText(field: ReferenceField): string {
  return typeof field === 'object' ? FILE_FIELD_PREFIX + escapeReferenceSegment(field.file) : field;
}
