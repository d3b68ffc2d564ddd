/**
 * Valibot schemas of every response body, and the typed domain values they produce. Tolerant of
 * real TeamPass servers: numbers where strings are due, `null`, missing optional fields, arrays or
 * objects keyed by id.
 *
 * @module
 */

import * as v from 'valibot';
import { type AccessType, parseRight } from '../rights.ts';
import { COMPLEXITY_LEVELS, type ComplexityLevel } from './segments.ts';

/**
 * A JSON value that stands for text: TeamPass sends strings, but numbers and `null` occur. Strings
 * are the first option and pass through with no transform: this runs for every field of every record.
 */
const text = v.union([
  v.string(),
  v.pipe(v.number(), v.transform(String)),
  v.pipe(
    v.null(),
    v.transform((): string => ''),
  ),
]);

/** Text that may be absent. */
const optionalText = v.optional(text, '');

/** An id: a string (or number) of decimal digits, as a number. */
const id = v.union([
  v.pipe(
    v.string(),
    v.regex(/^\s*\+?[0-9]+(\.0+)?\s*$/, 'Expected a numeric id'),
    v.transform((value) => Number.parseInt(value.replace('+', ''), 10)),
  ),
  v.pipe(v.number(), v.safeInteger('Expected a numeric id'), v.minValue(0, 'Expected a numeric id')),
]);

/** An integer that may come as text; absent or blank means 0. */
const integer = v.pipe(
  v.optional(v.union([v.string(), v.number(), v.null()]), '0'),
  v.transform((value): number => {
    const n = Number.parseInt(String(value ?? '0'), 10);
    return Number.isFinite(n) ? n : 0;
  }),
);

const accessType = v.pipe(
  optionalText,
  v.transform((value: string): AccessType => parseRight(value)),
);

/**
 * Splits a folder path as the API sends it (`Top > Sub > Leaf`).
 *
 * @param path The path text.
 * @returns The folder names, root first; empty for an empty path.
 */
export function splitPath(path: string): string[] {
  return path === '' ? [] : path.split(' > ').map((part) => part.trim());
}

/** What one-time codes of an item are made from (RFC 6238): a secret to keep sealed, never to log. */
export interface ItemOtpSecret {
  /** The Base32 secret. */
  secret: string;
  /** `sha1`, `sha256` or `sha512`. */
  algorithm: string;
  /** Digits of a code (6 or 8). */
  digits: number;
  /** Seconds a code lasts. */
  period: number;
}

/** A custom field of an item (TeamPass 3's, kept by the Vaultline server): what it is called and holds. */
export interface ItemCustomField {
  /** Its title, e.g. `Recovery code`. */
  title: string;
  /** Its type as the server names it (`text`, `textarea`, …); `text` when not said. */
  type: string;
  /** Whether the value is shown masked, like a password. */
  masked: boolean;
  /** The value, in clear: a secret when masked. */
  value: string;
}

/** One custom field as a server sends it (TeamPass 3's `fields`, a Vaultline item record's `fields`). */
const CustomFieldSchema = v.pipe(
  v.looseObject({
    title: text,
    type: optionalText,
    masked: v.optional(v.union([v.boolean(), v.number(), v.string(), v.null()]), false),
    value: optionalText,
  }),
  v.transform(
    (raw): ItemCustomField => ({
      title: raw.title,
      type: raw.type === '' ? 'text' : raw.type,
      masked: raw.masked === true || raw.masked === 1 || raw.masked === '1',
      value: raw.value,
    }),
  ),
);

/**
 * An item's custom fields as a server sent them (`fields`): each entry that reads as a field, the
 * rest left out; `undefined` when the record has none.
 *
 * @param fields The record's `fields` value.
 * @returns The fields.
 */
export function customFieldsOf(fields: unknown): ItemCustomField[] | undefined {
  if (!Array.isArray(fields) || fields.length === 0) return undefined;
  const out: ItemCustomField[] = [];
  for (const entry of fields) {
    const parsed = v.safeParse(CustomFieldSchema, entry);
    if (parsed.success) out.push(parsed.output);
  }
  return out;
}

/** Fields shared by item records of read and find. */
const itemEntries = {
  id,
  label: text,
  description: optionalText,
  login: optionalText,
  email: optionalText,
  url: optionalText,
  pw: optionalText,
  folder_id: v.optional(id, 0),
  path: optionalText,
};

/** The raw item record the API sends (all values strings), repaired where a server strays. */
export const RawItemRecordSchema = v.looseObject(itemEntries);

/** An item as the client hands it out. */
export interface ItemFields {
  /** The item id. */
  id: number;
  /** The label. */
  label: string;
  /** The description. */
  description: string;
  /** The login. */
  login: string;
  /** The email. */
  email: string;
  /** The URL. */
  url: string;
  /** The password (`""` where TeamPass cannot decrypt it). */
  password: string;
  /** The folder that holds it. */
  folderId: number;
  /** The folder path, root first. */
  path: string[];
  /** The item's tags, where the server returns them (TeamPass 3); `undefined` where it does not say. */
  tags?: string[] | undefined;
  /** Whether the item has a TOTP secret (`readOtp` reads its code), where the server says; `undefined` otherwise. */
  otp?: boolean | undefined;
  /** Its custom fields, where the server has them (TeamPass 3, the Vaultline server); `undefined` otherwise. */
  fields?: ItemCustomField[] | undefined;
  /**
   * Its TOTP profile, the secret in clear: only on a client made with `keepOtpSecrets` (a
   * migration), from a server that sends it (TeamPass 3); `undefined` otherwise.
   */
  otpSecret?: ItemOtpSecret | undefined;
  /** The record as the server sent it (repaired where it sent numbers or `null` for text). */
  raw: Readonly<Record<string, unknown>>;
}

function toItem(raw: v.InferOutput<typeof RawItemRecordSchema>): ItemFields {
  return {
    id: raw.id,
    label: raw.label,
    description: raw.description,
    login: raw.login,
    email: raw.email,
    url: raw.url,
    password: raw.pw,
    folderId: raw.folder_id,
    path: splitPath(raw.path),
    ...extrasOf(raw),
    raw,
  };
}

/** What a Vaultline server adds to an item record: `otp` (`"1"` for a TOTP secret), `fields`. */
function extrasOf(raw: Readonly<Record<string, unknown>>): Pick<ItemFields, 'otp' | 'fields'> {
  const out: Pick<ItemFields, 'otp' | 'fields'> = {};
  if (raw.otp === '1') out.otp = true;
  const fields = customFieldsOf(raw.fields);
  if (fields) out.fields = fields;
  return out;
}

/**
 * The wire form of an item record that every conforming server sends: each field a string. A type
 * alias, not an interface, so that it stays assignable to `Record<string, unknown>` (`raw`).
 */
export type ItemWireRecord = {
  /** The item id, decimal digits. */
  id: string;
  /** The label. */
  label: string;
  /** The description. */
  description: string;
  /** The login. */
  login: string;
  /** The email. */
  email: string;
  /** The URL. */
  url: string;
  /** The password, in clear. */
  pw: string;
  /** The folder id, decimal digits. */
  folder_id: string;
  /** The folder path, names joined by ` > `. */
  path: string;
  /** `"1"` when the item has a TOTP secret (a Vaultline server with `otp`); absent otherwise. */
  otp?: string;
  /** Its custom fields (a Vaultline server), when it has any. */
  fields?: ItemCustomField[];
};

const ID_TEXT = /^[0-9]{1,15}$/;

/**
 * Tells whether a record is in the canonical wire form. Checked in one pass rather than with a
 * schema per field: it runs for every record of answers that hold tens of thousands.
 */
function isItemWireRecord(value: unknown): value is ItemWireRecord {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return (
    typeof r.id === 'string' &&
    ID_TEXT.test(r.id) &&
    typeof r.label === 'string' &&
    typeof r.description === 'string' &&
    typeof r.login === 'string' &&
    typeof r.email === 'string' &&
    typeof r.url === 'string' &&
    typeof r.pw === 'string' &&
    typeof r.folder_id === 'string' &&
    ID_TEXT.test(r.folder_id) &&
    typeof r.path === 'string'
  );
}

function canonicalToItem(r: ItemWireRecord): ItemFields {
  return {
    id: Number(r.id),
    label: r.label,
    description: r.description,
    login: r.login,
    email: r.email,
    url: r.url,
    password: r.pw,
    folderId: Number(r.folder_id),
    path: splitPath(r.path),
    ...(r.otp === undefined && r.fields === undefined ? {} : extrasOf(r)),
    raw: r,
  };
}

/**
 * An item record of read/folder, read/items and read/userpw, turned into an {@link Item}. The
 * canonical form takes a fast path; anything else goes through the tolerant schema, which also
 * names what is wrong.
 *
 * @see ../../../../docs/spec.md §2.1
 */
export const ItemRecordSchema = v.union([
  v.pipe(v.custom<ItemWireRecord>(isItemWireRecord), v.transform(canonicalToItem)),
  v.pipe(RawItemRecordSchema, v.transform(toItem)),
]);

/** An item as the client hands it out: typed fields, and the record as received in `raw`. */
export type Item = v.InferOutput<typeof ItemRecordSchema>;

function isCanonicalFoundRecord(value: unknown): value is ItemWireRecord & { status: string } {
  return isItemWireRecord(value) && typeof (value as { status?: unknown }).status === 'string';
}

/** A find/item record: an item record with a `status`. */
export const FoundItemRecordSchema = v.union([
  v.pipe(
    v.custom<ItemWireRecord & { status: string }>(isCanonicalFoundRecord),
    v.transform((r) => ({ ...canonicalToItem(r), status: r.status })),
  ),
  v.pipe(
    v.looseObject({ ...itemEntries, status: optionalText }),
    v.transform((raw) => ({ ...toItem(raw), status: raw.status })),
  ),
]);

/** An item found by find/item. */
export type FoundItem = v.InferOutput<typeof FoundItemRecordSchema>;

/**
 * A folder's complexity level as a server sends it (`"60"`), or `undefined` when it sends none or
 * one that is not a level: the Vaultline server sends it; TeamPass 2's read/userfolders does not.
 */
function complexityOf(value: string | number | null | undefined): ComplexityLevel | undefined {
  if (value === undefined || value === null || String(value).trim() === '') return undefined;
  const level = Number(value);
  return (COMPLEXITY_LEVELS as readonly number[]).includes(level) ? (level as ComplexityLevel) : undefined;
}

/** A read/userfolders record, turned into a {@link Folder}. */
export const FolderRecordSchema = v.pipe(
  v.looseObject({
    id,
    title: text,
    level: integer,
    access_type: accessType,
    parent_id: v.optional(v.union([id, v.null()])),
    personal: v.optional(text),
    complexity_level: v.optional(v.union([v.string(), v.number(), v.null()])),
  }),
  v.transform((raw) => ({
    id: raw.id,
    title: raw.title,
    level: raw.level,
    accessType: raw.access_type,
    parentId: raw.parent_id ?? undefined,
    personal: raw.personal === '1',
    complexityLevel: complexityOf(raw.complexity_level),
    raw,
  })),
);

/** A folder the user may access, with the right they have on it. */
export type Folder = v.InferOutput<typeof FolderRecordSchema>;

/** A read/listfiles record, turned into a {@link FileInfo}. */
export const FileRecordSchema = v.pipe(
  v.looseObject({ id, name: text, type: optionalText, extension: optionalText, size: integer }),
  v.transform((raw) => ({
    id: raw.id,
    name: raw.name,
    type: raw.type,
    extension: raw.extension,
    size: raw.size,
    raw,
  })),
);

/** An attachment's metadata. */
export type FileInfo = v.InferOutput<typeof FileRecordSchema>;

/** A check and a mapping for the canonical form of a record, run without per-field schemas. */
export interface FastPath<TOutput> {
  /** Tells whether a record is in the canonical form. */
  is: (record: unknown) => boolean;
  /** Maps a canonical record to its output. */
  map: (record: never) => TOutput;
}

function recordsOf(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (typeof value === 'object' && value !== null) return Object.values(value);
  return undefined;
}

/**
 * A collection in either shape real servers use: a JSON array, or an object keyed by id (PHP also
 * sends `[]` for an empty one). Always parsed into an array, ordered as received. With a fast path,
 * a collection whose records are all canonical is checked and mapped in one loop; any other goes
 * through the record schema, which repairs what it can and names what it cannot.
 *
 * @param record The schema of one record.
 * @param fast The fast path for canonical records.
 * @returns The collection schema.
 */
export function collection<TRecord extends v.GenericSchema>(
  record: TRecord,
  fast?: FastPath<v.InferOutput<TRecord>>,
): v.GenericSchema<unknown, v.InferOutput<TRecord>[]> {
  const tolerant = v.pipe(
    v.union([v.array(record), v.record(v.string(), record)]),
    v.transform((value): v.InferOutput<TRecord>[] => (Array.isArray(value) ? value : Object.values(value))),
  );
  if (!fast) return tolerant;
  return v.union([
    v.pipe(
      v.custom<unknown[] | Record<string, unknown>>((value) => typeof value === 'object' && value !== null),
      v.transform((value) => recordsOf(value)!),
      v.check((records) => records.every(fast.is)),
      v.transform((records): v.InferOutput<TRecord>[] => records.map((entry) => fast.map(entry as never))),
    ),
    tolerant,
  ]);
}

/** The body of read/folder, read/items and read/userpw. */
export const ItemListSchema: v.GenericSchema<unknown, Item[]> = collection(ItemRecordSchema, {
  is: isItemWireRecord,
  map: canonicalToItem,
});
/** The body of find/item. */
export const FoundItemListSchema: v.GenericSchema<unknown, FoundItem[]> = collection(FoundItemRecordSchema, {
  is: isCanonicalFoundRecord,
  map: (r: ItemWireRecord & { status: string }) => ({ ...canonicalToItem(r), status: r.status }),
});
/** The body of read/userfolders. */
export const FolderListSchema = collection(FolderRecordSchema);
/** The body of read/listfiles. */
export const FileListSchema = collection(FileRecordSchema);

/** The body of add/item: `{"status":"item added","new_item_id":"54"}`. */
export const AddItemResultSchema = v.pipe(
  v.looseObject({ status: text, new_item_id: id }),
  v.transform((raw) => ({ status: raw.status, id: raw.new_item_id })),
);

/** The body of add/folder: `{"status":"folder created","new_folder_id":"54"}`. */
export const AddFolderResultSchema = v.pipe(
  v.looseObject({ status: text, new_folder_id: id }),
  v.transform((raw) => ({ status: raw.status, id: raw.new_folder_id })),
);

/** The body of update/item and update/folder: `{"status":"item updated"}`, or the text `OK`. */
export const StatusResultSchema = v.pipe(
  v.union([v.looseObject({ status: text }), v.literal('OK')]),
  v.transform((raw) => ({ status: typeof raw === 'string' ? raw : raw.status })),
);

/** The body of delete/item and delete/folder: the text `OK` (the spec) or `{"status":"OK"}` (TeamPass). */
export const OkResultSchema = v.pipe(
  v.union([v.literal('OK'), v.looseObject({ status: v.literal('OK') })]),
  v.transform(() => ({ status: 'OK' as const })),
);

/** The body of add/file: `{"status":"success"}`, with `new_file_id` on Vaultline servers. */
export const AddFileResultSchema = v.pipe(
  v.looseObject({ status: text, new_file_id: v.optional(id) }),
  v.transform((raw) => ({ status: raw.status, id: raw.new_file_id })),
);

/**
 * The body of new_password: `{"password":"…"}` (TeamPass writes `{"password" : "…"}`, the same
 * JSON). A freshly generated password, not one of the vault's.
 */
export const NewPasswordResultSchema = v.pipe(
  v.looseObject({ password: v.pipe(v.string(), v.minLength(1, 'Expected a non-empty password')) }),
  v.transform((raw) => ({ password: raw.password })),
);

/**
 * The body of read/otp (a Vaultline server with `otp`): an item's current one-time code, as
 * strings like every record of the legacy API, read into the client's `OtpCode`.
 */
export const OtpResultSchema = v.pipe(
  v.looseObject({
    item_id: id,
    code: v.pipe(text, v.regex(/^[0-9]{1,10}$/, 'Expected the code as digits')),
    expires_in: integer,
    period: integer,
    digits: integer,
  }),
  v.transform((raw) => ({
    itemId: raw.item_id,
    code: raw.code.padStart(raw.digits, '0'),
    secondsLeft: raw.expires_in,
    period: raw.period,
    digits: raw.digits,
  })),
);

/** An error body: `{"err":"…"}`, sometimes with a `code`, and from a Vaultline server a `reason`. */
export const ErrorBodySchema = v.looseObject({
  err: text,
  code: v.optional(text),
  reason: v.optional(text),
});
