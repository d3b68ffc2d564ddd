/**
 * Path parameters of the endpoint table: how each typed value becomes one path segment and back.
 * The client encodes with them; the server decodes with the same objects.
 *
 * @module
 */

import { VaultError } from '../errors.ts';
import { type PasswordRules, passwordLength } from '../password-generator.ts';
import {
  decodeFolderValues,
  decodeId,
  decodeIdList,
  decodeItemValues,
  decodeRawSegment,
  decodeValue,
  encodeFolderValues,
  encodeId,
  encodeIdList,
  encodeItemValues,
  encodeRawSegment,
  type FolderEncoding,
  type ItemValues,
  type ItemWrite,
} from './codec.ts';

/** Settings the encoders may need. */
export interface EncodeContext {
  /** How folder values travel. */
  folderEncoding: FolderEncoding;
}

/** One typed path parameter. */
export interface Segment<TInput, TDecoded> {
  /** What the segment holds, for messages and docs. */
  readonly description: string;
  /** Whether the segment carries secrets (write values): it is redacted from logs and errors. */
  readonly secret: boolean;
  /** Whether the segment is a `;`-separated id list that may be split over several calls. */
  readonly list: boolean;
  /**
   * Encodes a value for the path.
   *
   * @param value The typed value.
   * @param context The client's settings.
   * @returns The path segment.
   */
  encode(value: TInput, context: EncodeContext): string;
  /**
   * Decodes a path segment (server side).
   *
   * @param segment The raw path segment, not percent-decoded.
   * @returns The decoded value.
   */
  decode(segment: string): TDecoded;
}

/** Any segment. */
// biome-ignore lint/suspicious/noExplicitAny: the table stores segments of every type.
export type AnySegment = Segment<any, any>;

/** The allowed folder complexity levels (minimum password strength of its items). */
export const COMPLEXITY_LEVELS = [0, 25, 50, 60, 70, 80, 90] as const;

/** A folder complexity level: 0 Very weak … 90 Very heavy. */
export type ComplexityLevel = (typeof COMPLEXITY_LEVELS)[number];

/** A folder as add/folder writes it. */
export interface FolderCreate {
  /** The title; for a personal folder, the owner's user id. */
  title: string;
  /** Minimum password strength of the folder's items. Default 0. */
  complexityLevel?: ComplexityLevel | undefined;
  /** The parent folder; 0 or absent for the root level. */
  parentId?: number | undefined;
  /** Renewal period in months; 0 or absent for never. */
  renewalPeriod?: number | undefined;
  /** Whether it is a personal folder. */
  personal?: boolean | undefined;
}

/** A folder as update/folder writes it: all three values are replaced. */
export interface FolderUpdate {
  /** The title. */
  title: string;
  /** Minimum password strength of the folder's items. */
  complexityLevel: ComplexityLevel;
  /** Renewal period in months; 0 for never. */
  renewalPeriod: number;
}

/** A decoded add/folder segment. */
export interface DecodedFolderCreate {
  title: string;
  complexityLevel: number;
  parentId: number;
  renewalPeriod: number;
  personal: boolean;
}

function wholeNumber(value: string, what: string): number {
  if (!/^[0-9]{1,9}$/.test(value)) {
    throw new VaultError(
      'invalid_request',
      `Expected ${what} to be a whole number, received ${JSON.stringify(value.slice(0, 20))}.`,
    );
  }
  return Number.parseInt(value, 10);
}

function flag(value: string, what: string): boolean {
  if (value === '1') return true;
  if (value === '0' || value === '') return false;
  throw new VaultError(
    'invalid_request',
    `Expected ${what} to be 0 or 1, received ${JSON.stringify(value.slice(0, 20))}.`,
  );
}

/** One plain id. */
export const idSegment: Segment<number, number> = {
  description: 'a positive integer id',
  secret: false,
  list: false,
  encode: (id) => encodeId(id),
  decode: decodeId,
};

/** A `;`-separated list of plain ids. */
export const idListSegment: Segment<readonly number[], number[]> = {
  description: "positive integer ids separated by ';'",
  secret: false,
  list: true,
  encode: (ids) => encodeIdList(ids),
  decode: decodeIdList,
};

/** The nine base64url item values. */
export const itemSegment: Segment<ItemWrite, ItemValues> = {
  description:
    "nine base64url values separated by ';': label, password, description, folder_id, login, email, url, tags, any_one_can_modify",
  secret: true,
  list: false,
  encode: (item) => encodeItemValues(item),
  decode: decodeItemValues,
};

/** The five add/folder values. */
export const folderCreateSegment: Segment<FolderCreate, DecodedFolderCreate> = {
  description:
    'title, complexity_level, parent_id, renewal_period, personal: one base64url blob of the values joined by ";" (or each value encoded)',
  secret: false,
  list: false,
  encode: (folder, context) =>
    encodeFolderValues(
      [
        folder.title,
        String(folder.complexityLevel ?? 0),
        String(folder.parentId ?? 0),
        String(folder.renewalPeriod ?? 0),
        folder.personal ? '1' : '0',
      ],
      context.folderEncoding,
    ),
  decode: (segment) => {
    const [title, complexity, parent, renewal, personal] = decodeFolderValues(segment, 5) as [
      string,
      string,
      string,
      string,
      string,
    ];
    return {
      title,
      complexityLevel: wholeNumber(complexity, 'complexity_level'),
      parentId: wholeNumber(parent, 'parent_id'),
      renewalPeriod: wholeNumber(renewal, 'renewal_period'),
      personal: flag(personal, 'personal'),
    };
  },
};

/** The three update/folder values. */
export const folderUpdateSegment: Segment<FolderUpdate, FolderUpdate & { complexityLevel: number }> = {
  description:
    'title, complexity_level, renewal_period: one base64url blob of the values joined by ";" (or each value encoded)',
  secret: false,
  list: false,
  encode: (folder, context) =>
    encodeFolderValues(
      [folder.title, String(folder.complexityLevel), String(folder.renewalPeriod)],
      context.folderEncoding,
    ),
  decode: (segment) => {
    const [title, complexity, renewal] = decodeFolderValues(segment, 3) as [string, string, string];
    return {
      title,
      complexityLevel: wholeNumber(complexity, 'complexity_level') as ComplexityLevel,
      renewalPeriod: wholeNumber(renewal, 'renewal_period'),
    };
  },
};

/**
 * Reads update/folder values as scripts written for TeamPass 2 send them (the Vaultline server's
 * `teampass` profile): TeamPass reads the first three values and ignores the rest, so scripts send
 * add/folder's five. Three values are the spec's (title, complexity level, renewal period); four
 * are the spec's three and one ignored; five or more are add/folder's order (title, complexity
 * level, parent, renewal period, personal), whose parent and personal flag are ignored: an update
 * moves no folder and keeps a personal one personal. (TeamPass itself would store the parent id as
 * the renewal period.) Either form of {@link folderUpdateSegment}.
 *
 * @param segment The raw path segment.
 * @returns The update.
 * @throws {VaultError} `invalid_request` for fewer than three values, or a value that does not decode.
 */
export function decodeLenientFolderUpdate(segment: string): FolderUpdate & { complexityLevel: number } {
  const values = segment.includes(';')
    ? segment.split(';').map(decodeValue)
    : decodeValue(segment).split(';');
  if (values.length < 3) {
    throw new VaultError(
      'invalid_request',
      `Expected at least 3 folder values separated by ';' (title;complexity_level;renewal_period), received ${values.length}.`,
    );
  }
  const [title, complexity, third, fourth] = values as [string, string, string, string | undefined];
  const renewal = values.length >= 5 ? fourth! : third;
  return {
    title,
    complexityLevel: wholeNumber(complexity, 'complexity_level') as ComplexityLevel,
    renewalPeriod: wholeNumber(renewal, 'renewal_period'),
  };
}

/**
 * A raw text segment (not base64): a login or a search string.
 *
 * @param what What it holds.
 * @returns The segment.
 */
export function rawSegment(what: string): Segment<string, string> {
  return {
    description: `the ${what}, raw (not base64)`,
    secret: false,
    list: false,
    encode: (value) => encodeRawSegment(value, what),
    decode: (segment) => decodeRawSegment(segment, what),
  };
}

/** What a server reads from a `new_password` segment: the rules, and whether to answer base64. */
export interface PasswordRequest {
  /** The generator's rules. */
  readonly rules: PasswordRules;
  /** Answer the password base64-encoded (TeamPass's seventh value). */
  readonly base64: boolean;
}

/** The names of the values of a `new_password` segment, in order: TeamPass's seven, then Vaultline's complexity level. */
export const PASSWORD_RULE_NAMES = [
  'size',
  'secure',
  'numerals',
  'capitalize',
  'ambiguous',
  'symbols',
  'base64',
  'complexity',
] as const;

/** A flag of a `new_password` segment: `1` on, `0` off, absent or empty the default. */
function ruleFlag(value: string | undefined, what: string): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === '1') return true;
  if (value === '0') return false;
  throw new VaultError(
    'invalid_request',
    `Expected ${what} to be 0 or 1, received ${JSON.stringify(value.slice(0, 20))}.`,
  );
}

/** A folder complexity level, one of {@link COMPLEXITY_LEVELS}, read from text. */
function complexityLevelOf(text: string): ComplexityLevel {
  const level = COMPLEXITY_LEVELS.find((known) => String(known) === text);
  if (level === undefined) {
    throw new VaultError(
      'invalid_request',
      `Expected complexity to be one of ${COMPLEXITY_LEVELS.join(', ')}, received ${JSON.stringify(text.slice(0, 20))}.`,
    );
  }
  return level;
}

/**
 * The rules of `new_password`, TeamPass's parameters in TeamPass's order, raw (not base64):
 * `size;secure;numerals;capitalize;ambiguous;symbols;base64`, then Vaultline's `complexity` (a
 * folder complexity level the password must reach, which TeamPass ignores). The client always
 * sends a size (the one its rules give), so that TeamPass, whose default is 8, makes the same
 * length; and `secure` when every class is asked, since TeamPass gives symbols only then (or with
 * base64). A server reads an absent or empty value as the generator's default, `size` `0` as
 * absent, and ignores values past the eighth (as TeamPass does).
 */
export const passwordRulesSegment: Segment<PasswordRules, PasswordRequest> = {
  description: `${PASSWORD_RULE_NAMES.join(';')}: the length, then 1 or 0 for every class (secure: all of them), look-alikes and a base64 answer, then a folder complexity level to reach`,
  secret: false,
  list: false,
  encode: (rules) => {
    const upper = rules.upper ?? true;
    const digits = rules.digits ?? true;
    const symbols = rules.symbols ?? true;
    const flag = (on: boolean) => (on ? '1' : '0');
    return [
      String(passwordLength(rules)),
      flag(upper && digits && symbols),
      flag(digits),
      flag(upper),
      flag(rules.ambiguous ?? false),
      flag(symbols),
      '0',
      rules.complexityLevel === undefined ? '' : String(complexityLevelOf(String(rules.complexityLevel))),
    ].join(';');
  },
  decode: (segment) => {
    const [size = '', secureText, numerals, capitalize, ambiguous, symbols, base64, complexity = ''] =
      segment.split(';');
    if (size !== '' && !/^[0-9]{1,9}$/.test(size)) {
      throw new VaultError(
        'invalid_request',
        `Expected size to be a whole number of characters, received ${JSON.stringify(size.slice(0, 20))}.`,
      );
    }
    const complexityLevel = complexity === '' ? undefined : complexityLevelOf(complexity);
    const secure = ruleFlag(secureText, 'secure') === true;
    const upper = ruleFlag(capitalize, 'capitalize');
    const digits = ruleFlag(numerals, 'numerals');
    const withSymbols = ruleFlag(symbols, 'symbols');
    const rules: PasswordRules = {
      length: size === '' || Number(size) === 0 ? undefined : Number(size),
      complexityLevel,
      upper: secure || upper,
      digits: secure || digits,
      symbols: secure || withSymbols,
      ambiguous: ruleFlag(ambiguous, 'ambiguous'),
    };
    return { rules, base64: ruleFlag(base64, 'base64') ?? false };
  },
};

/** TeamPass 2's length when the first value of `new_password` is empty or `0`. */
const TEAMPASS_DEFAULT_LENGTH = 8;

/**
 * Reads `new_password` rules as TeamPass 2.1.27.36 does (`api/functions.php`; the Vaultline
 * server's `teampass` profile): the values split on `;`; the size is the number the first value
 * starts with (PHP's `intval`: `12:1:1:10` is 12), 8 when it is empty, `0` or starts with none; a
 * flag is on only when it is exactly `1` (anything else, or missing, is off). TeamPass's generator
 * always draws lower- and upper-case letters and digits without look-alikes (its library's
 * defaults, which the numerals and capitalize values never turn off), adds symbols for `secure`
 * (the second value) or for symbols and base64 together (the sixth and seventh), and answers
 * base64 when the seventh is `1`. Vaultline's eighth value, a folder complexity level, is kept
 * when it is one (a size then defaults to what the level needs); anything else after the seventh
 * is ignored, as TeamPass ignores it. So mrlocke's `teampass-changer` rules (`12:1:1:10;0`,
 * `12;1;1;1;10;0`) get a 12-character password, as on TeamPass.
 *
 * @param segment The raw path segment.
 * @returns The request.
 * @throws {VaultError} `invalid_request` for an empty segment: TeamPass answers `No parameters given`.
 */
export function decodeTeamPassPasswordRules(segment: string): PasswordRequest {
  if (segment === '') throw new VaultError('invalid_request', 'No parameters given');
  const values = segment.split(';');
  const on = (index: number) => values[index] === '1';
  const size = Number(/^\s*[+-]?([0-9]{1,9})/.exec(values[0] ?? '')?.[1] ?? '0');
  const complexityText = values[7] ?? '';
  const complexityLevel = COMPLEXITY_LEVELS.find((known) => String(known) === complexityText);
  const secure = on(1);
  const base64 = on(6);
  const rules: PasswordRules = {
    length: size !== 0 ? size : complexityLevel === undefined ? TEAMPASS_DEFAULT_LENGTH : undefined,
    complexityLevel,
    upper: true,
    digits: true,
    symbols: secure || (on(5) && base64),
    ambiguous: false,
  };
  return { rules, base64 };
}
