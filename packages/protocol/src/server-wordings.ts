/**
 * The error texts vault servers send in fixed words: the only server text an app may log as it
 * is. Any other text a server writes may quote what it failed on (a record, a password, a key),
 * in shapes no masking pattern foresees (`{'pw': '…'}`, `pw:…`, `decrypt failed for …`).
 *
 * @module
 */

import { VaultError } from './errors.ts';
import { TEAMPASS2_ERRORS } from './legacy/teampass2.ts';

/**
 * The fixed wordings, as servers write them; `#` stands for a number (an id, a count, a limit),
 * the only variable part a fixed wording may have.
 */
const FIXED_WORDINGS: readonly string[] = [
  // TeamPass 2 (its `err` messages).
  ...Object.values(TEAMPASS2_ERRORS).map((answer) => answer.body.err),
  // TeamPass 3 (its `error` messages).
  'Missing Authorization header',
  'Invalid or expired token',
  'Unknown route',
  'Rate limit exceeded — retry in # seconds',
  'Login failed. (Invalid credentials)',
  'Login failed. (OAuth2 API access is disabled)',
  'Login failed. (Account temporarily locked)',
  'Login failed. (Missing credentials)',
  'Missing required parameters: login, password, and apikey must be provided in request body',
  'Missing required parameters: login and token must be provided in request body',
  'Credentials must be sent in request body (application/x-www-form-urlencoded or application/json), not in URL',
  'An internal error occurred. Please contact support.',
  'Access denied: no accessible folders',
  'Item id, label or description is mandatory',
  'OTP is not enabled for this item',
  'Access denied: insufficient permissions for this action',
  'Access denied: insufficient permissions to create a folder',
  'Access denied: folder is read-only',
  'Access denied: you are not allowed to edit items in this folder',
  'Access denied: parent folder is not accessible',
  'Access denied: administrator rights required',
  'Access denied to this item',
  'Access denied to this folder',
  'Access denied to the target folder',
  'API usage is not allowed',
  'Item ID is mandatory',
  'Folders are mandatory',
  'User is not allowed in this folder',
  'Method not supported',
  'Item not found',
  'Folder not found',
  'This folder already exists!',
  'Similar item already exists. Duplicates are not allowed.',
  'OTP not configured for this item',
  'Invalid parameters',
  'HTTPS is required for API requests (api_require_https is enabled)',
  'All fields have to be provided even if empty (refer to documentation).',
  // The Vaultline server.
  'Internal server error.',
  'Slow down.',
  'Too many requests from this address; slow down.',
  'The database is not reachable.',
  'Invalid API key.',
  'Expected the header "Authorization: Bearer <key>".',
  'Ip address not allowed for this API key.',
  "A user-bound key may only read its own user's items and folders.",
  'Bad input.',
  'Expected a numeric id.',
  'Malformed HTTP request.',
  'No such operation: expected /api/index.php/<verb>/<object>/….',
  'The request line or headers are too large.',
  'The request URL is longer than the limit of # bytes.',
  'The request conflicts with a change made at the same time; try again.',
  'Not yours.',
  'No item with id #.',
  'No file with id #.',
  'Folder ID does not exist: #.',
  'Parent folder does not exist: #.',
  'Folder # is a personal folder: only its owner may access it.',
  'Folders nest at most # levels deep.',
  'Expected at most # ids in one call, received #.',
  'The file is larger than the limit of # bytes.',
  'An item was deleted by another request; nothing was deleted.',
  'Expected a non-empty label.',
  'Expected a non-empty password.',
  'Expected a non-empty folder title.',
  'Expected a search string with something besides spaces and accents.',
];

/** A wording reduced to what is compared: numbers as `#`, spaces collapsed, no case. */
function shapeOf(text: string): string {
  return text.replace(/\d+/g, '#').replace(/\s+/g, ' ').trim().toLowerCase();
}

const FIXED_SHAPES: ReadonlySet<string> = new Set(FIXED_WORDINGS.map(shapeOf));

/**
 * Tells whether a server's text is one of the fixed wordings servers are known to send (numbers
 * may differ): a text that cannot carry a value.
 *
 * @param text The server's words.
 * @returns Whether it is a fixed wording.
 */
export function isFixedServerWording(text: string): boolean {
  return FIXED_SHAPES.has(shapeOf(text));
}

/**
 * The server's words about an error when they are a fixed wording ({@link isFixedServerWording}),
 * for a log line: the only server text that may be logged as it is. Anything else the server
 * wrote (its other messages, a body that was not understood) gives `undefined`.
 *
 * @param error The thrown value.
 * @returns The wording, trimmed, or `undefined`.
 * @example
 * ```ts
 * fixedServerWordsOf(error); // 'User does not exist' — never 'decrypt failed for …'
 * ```
 */
export function fixedServerWordsOf(error: unknown): string | undefined {
  if (!(error instanceof VaultError) || error.serverMessage === undefined) return undefined;
  const words = error.serverMessage.replace(/\s+/g, ' ').trim();
  return isFixedServerWording(words) ? words : undefined;
}
