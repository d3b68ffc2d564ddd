/**
 * How TeamPass 2 (2.1.27.x) answers the legacy API, where a script can tell: its error answers
 * (words, HTTP status, its own `code`), its delete status and its `info/version`. The one copy:
 * the Vaultline server's TeamPass profile answers with it, the TeamPass 2 fake of
 * `@vaultline/protocol/testing` emulates it, and the core recognises its words.
 *
 * @see ../../../../docs/teampass.md
 * @module
 */

/** One answer of TeamPass 2: its HTTP status and its JSON body. */
export interface TeamPass2Answer {
  /** The HTTP status TeamPass sends (mostly 200, whatever happened). */
  readonly status: number;
  /** The body: TeamPass's words in `err`, and for a few errors a `code` of its own. */
  readonly body: { readonly err: string; readonly code?: string };
}

/**
 * TeamPass 2's error answers, as 2.1.27.36 sends them (docs/teampass.md, Errors). The wrong-key
 * answer is left out: it echoes the key sent.
 */
export const TEAMPASS2_ERRORS = {
  apiDisabled: { status: 200, body: { err: 'API access not allowed.' } },
  ipNotAllowed: { status: 405, body: { err: 'Ip address not allowed.' } },
  apiKeyMissing: { status: 500, body: { err: 'Something happen ... but what ?' } },
  methodNotAuthorized: {
    status: 405,
    body: { err: 'Method not authorized', code: 'METHOD_NOT_AUTHORIZED' },
  },
  urlFormat: { status: 200, body: { err: 'URL format is not following requirements' } },
  itemNotComplete: { status: 405, body: { err: 'Item definition not complete' } },
  itemNotNumeric: { status: 405, body: { err: 'Item definition not numeric' } },
  noResults: { status: 200, body: { err: 'No results' } },
  labelExists: { status: 200, body: { err: 'Label already exists' } },
  fieldMissing: { status: 200, body: { err: 'Label or Password or Folder ID is missing' } },
  passwordTooLong: { status: 200, body: { err: 'Password is too long' } },
  passwordEmpty: { status: 200, body: { err: 'Password is empty' } },
  folderMissing: { status: 200, body: { err: 'Folder ID does not exist' } },
  noDataExists: { status: 200, body: { err: 'No data exists', code: 'NO_DATA_EXIST' } },
  userMissing: { status: 200, body: { err: 'User does not exist' } },
  htmlTags: { status: 200, body: { err: 'HTML tags not allowed' } },
  numericTitle: { status: 200, body: { err: 'Title only with numbers not allowed' } },
  complexity: { status: 200, body: { err: 'complexity level was not reached' } },
  noFolderSpecified: { status: 200, body: { err: 'No folder specified' } },
  noParameters: { status: 200, body: { err: 'No parameters given' } },
} as const satisfies Record<string, TeamPass2Answer>;

/** The name of one of {@link TEAMPASS2_ERRORS}. */
export type TeamPass2Error = keyof typeof TEAMPASS2_ERRORS;

/** The API version TeamPass 2.1.27.x states in `info/version`: `{"api-version":"2.1.5"}`. */
export const TEAMPASS2_API_VERSION = '2.1.5';

/** TeamPass 2's answer to `info/version` (with a key: without one it answers its missing-key error). */
export const TEAMPASS2_VERSION_BODY: { readonly 'api-version': string } = {
  'api-version': TEAMPASS2_API_VERSION,
};

/** TeamPass 2's answer to a delete (the spec shows the text `OK`). */
export const TEAMPASS2_DELETE_BODY: { readonly status: 'OK' } = { status: 'OK' };

/**
 * TeamPass 2's answer to `info/complexicity_levels_list` (its spelling): the folder complexity
 * levels and their English names, keyed by level (`api/functions.php` and
 * `includes/language/english.php` of 2.1.27.36).
 */
export const TEAMPASS2_COMPLEXITY_LEVELS_BODY: Readonly<Record<string, string>> = {
  '0': 'Very weak',
  '25': 'Weak',
  '50': 'Medium',
  '60': 'Strong',
  '70': 'Very strong',
  '80': 'Heavy',
  '90': 'Very heavy',
};

/** The path (after `/api/index.php`) of TeamPass 2's list of complexity levels. */
export const TEAMPASS2_COMPLEXITY_LEVELS_PATH = '/info/complexicity_levels_list';
