/**
 * The one error class of the protocol core, its codes, and redaction of the API key.
 *
 * @module
 */

/** Every code a {@link VaultError} can carry. */
export const VAULT_ERROR_CODES = [
  'unauthorized',
  'forbidden',
  'not_found',
  'duplicate_label',
  'invalid_request',
  'api_disabled',
  'too_large',
  'rate_limited',
  'invalid_response',
  'network',
  'timeout',
  'aborted',
  'server',
  'unsupported',
] as const;

/**
 * What went wrong, as a string a program can switch on:
 *
 * - `unauthorized`: the credentials were refused (wrong key, password or token; an expired or
 *   revoked session that signing in again did not mend; credentials the server's dialect cannot use).
 * - `forbidden`: the server refused the action for these credentials (folder rights, API permissions).
 * - `not_found`: no such item, folder, user or attachment (on servers that cannot tell, "not found
 *   or not permitted", as the message says).
 * - `duplicate_label`: an item or folder with a similar label exists.
 * - `invalid_request`: the input was refused, by the core before sending or by the server.
 * - `api_disabled`: the API is switched off, for the site or for the user.
 * - `too_large`: a value, URL or answer is above a limit.
 * - `rate_limited`: the server asks to slow down; `retryAfterMs` says for how long when it said.
 * - `invalid_response`: an answer that cannot be understood.
 * - `network`, `timeout`, `aborted`: no answer, no answer in time, cancelled by the caller.
 * - `server`: the server failed (5xx).
 * - `unsupported`: the server cannot do this at all (no attachments, no one-time codes, no reading
 *   another user's data): nothing was sent. Its capabilities say so beforehand.
 */
export type VaultErrorCode = (typeof VAULT_ERROR_CODES)[number];

/**
 * Why a `network` error got no answer, when the core could tell (in browsers, see
 * `explainNetworkFailure`): `cors` the server answers but does not allow the page's origin,
 * `mixed-content` an `https:` page may not call a plain `http:` server, `unreachable` nothing
 * answers.
 */
export const NETWORK_REASONS = ['cors', 'mixed-content', 'unreachable'] as const;

/** One of {@link NETWORK_REASONS}. */
export type NetworkReason = (typeof NETWORK_REASONS)[number];

/**
 * Every reason a {@link VaultError} can carry: why it happened, finer than its code. A reason
 * refines one code ({@link REASON_CODES}); code that knows only codes still reads the error right.
 */
export const VAULT_ERROR_REASONS = [
  ...NETWORK_REASONS,
  'key_revoked',
  'sign_in_refused',
  'sign_in_locked',
  'https_required',
  'upstream',
] as const;

/**
 * Why an error happened, finer than its {@link VaultErrorCode}:
 *
 * - `cors`, `mixed-content`, `unreachable` (code `network`): see {@link NETWORK_REASONS}.
 * - `key_revoked` (code `unauthorized`): the server knows the key, and it was revoked. Not a typo:
 *   the fix is a new key from an administrator, not typing it again.
 * - `sign_in_refused` (code `unauthorized`): signing in was refused (TeamPass 3's `authorize` or
 *   `authorizeToken`): a wrong login, password, API key or personal access token, or a user who
 *   may not use the API, which TeamPass answers the same way. Not a session that ran out: an
 *   expired or revoked token is renewed by signing in again, and only that refusal is thrown.
 * - `sign_in_locked` (code `unauthorized`): signing in was refused because the server locked sign-ins
 *   for a while after repeated failures (TeamPass 3's `Account temporarily locked`, per login or per
 *   client address): not wrong credentials. Nothing to fix but to wait (the server does
 *   not say how long) or ask an administrator; another try now counts as another failure.
 * - `https_required` (code `forbidden`): the server answers API requests over HTTPS only
 *   (TeamPass 3's `HTTPS is required for API requests`): use the `https://` URL. Not a right.
 * - `upstream` (code `server`): a Vaultline server in upstream mode could not get an answer from
 *   the TeamPass behind it (down, hung, refusing the server's account): not the caller's key,
 *   nor the server it called.
 *
 * @see ../../../docs/api.md#errors
 */
export type VaultErrorReason = (typeof VAULT_ERROR_REASONS)[number];

/** The code each {@link VaultErrorReason} refines. */
export const REASON_CODES: Readonly<Record<VaultErrorReason, VaultErrorCode>> = {
  cors: 'network',
  'mixed-content': 'network',
  unreachable: 'network',
  key_revoked: 'unauthorized',
  sign_in_refused: 'unauthorized',
  sign_in_locked: 'unauthorized',
  https_required: 'forbidden',
  upstream: 'server',
};

/** Options of the {@link VaultError} constructor. */
export interface VaultErrorOptions {
  /** The HTTP status, when a response arrived. */
  status?: number | undefined;
  /** The server's own message (`err`), redacted. */
  serverMessage?: string | undefined;
  /** The server's own code (`code`), when it sent one. */
  serverCode?: string | undefined;
  /** Why, finer than the code: what the server said (`key_revoked`) or why no answer came (`cors`). */
  reason?: VaultErrorReason | undefined;
  /** The operation that failed, e.g. `readItems`. */
  endpoint?: string | undefined;
  /** The request URL with the API key and any secret path segments replaced. */
  url?: string | undefined;
  /** A short, redacted excerpt of a body that could not be understood. */
  excerpt?: string | undefined;
  /** Validation issues, for `invalid_response`. */
  issues?: readonly unknown[] | undefined;
  /** For `network` with reason `cors`: the origin the requests came from, the one to allow. */
  requestOrigin?: string | undefined;
  /** For `rate_limited`: how long the server asks to wait (`Retry-After`), in ms. */
  retryAfterMs?: number | undefined;
  /** For `not_found` of items read by id: the ids that are not there (or not visible), in the order asked. */
  missingIds?: readonly number[] | undefined;
  /** The underlying error, already stripped of secrets. */
  cause?: unknown;
}

/** The text that stands in for a secret everywhere the core reports something. */
export const REDACTED = '[REDACTED]';

/**
 * An error from the vault or from talking to it. Never holds the API key: every string it keeps
 * has been passed through {@link Redactor} before it got here.
 */
export class VaultError extends Error {
  override name = 'VaultError';
  /** What went wrong. */
  readonly code: VaultErrorCode;
  /** The HTTP status, or `undefined` when no response arrived. */
  readonly status: number | undefined;
  /** The server's own message (`err`), redacted. */
  readonly serverMessage: string | undefined;
  /** The server's own code, when it sent one. */
  readonly serverCode: string | undefined;
  /**
   * Why, finer than the code, when the core could tell: `key_revoked` when the server said so,
   * `sign_in_refused` when signing in was refused, or for `network` why no answer arrived (`cors`,
   * `mixed-content`, `unreachable`).
   */
  readonly reason: VaultErrorReason | undefined;
  /** The operation that failed. */
  readonly endpoint: string | undefined;
  /** The request URL, redacted. */
  readonly url: string | undefined;
  /** A short, redacted excerpt of a body that could not be understood. */
  readonly excerpt: string | undefined;
  /** Validation issues, for `invalid_response`. */
  readonly issues: readonly unknown[] | undefined;
  /** For `network` with reason `cors` (or `mixed-content`): the origin the requests came from. */
  readonly requestOrigin: string | undefined;
  /** For `rate_limited`: how long the server asks to wait (`Retry-After`), in ms, when it said. */
  readonly retryAfterMs: number | undefined;
  /** For `not_found` of items read by id (`items.getMany`): the ids that are not there, or not visible. */
  readonly missingIds: readonly number[] | undefined;

  /**
   * Creates an error.
   *
   * @param code What went wrong.
   * @param message One line: what was expected, what was received, where.
   * @param options The details.
   */
  constructor(code: VaultErrorCode, message: string, options: VaultErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status;
    this.serverMessage = options.serverMessage;
    this.serverCode = options.serverCode;
    this.reason = options.reason;
    this.endpoint = options.endpoint;
    this.url = options.url;
    this.excerpt = options.excerpt;
    this.issues = options.issues;
    this.requestOrigin = options.requestOrigin;
    this.retryAfterMs = options.retryAfterMs;
    this.missingIds = options.missingIds;
  }

  /**
   * A copy of this error with some of its details changed, its stack kept: for refining an error on
   * its way up (the wait a 429 asked for, a reason the caller knows).
   *
   * @param changes The details to change; the message too, when given.
   * @returns The copy.
   */
  with(changes: VaultErrorOptions & { message?: string | undefined }): VaultError {
    const { message = this.message, ...options } = changes;
    const copy = new VaultError(this.code, message, {
      status: this.status,
      serverMessage: this.serverMessage,
      serverCode: this.serverCode,
      reason: this.reason,
      endpoint: this.endpoint,
      url: this.url,
      excerpt: this.excerpt,
      issues: this.issues,
      requestOrigin: this.requestOrigin,
      retryAfterMs: this.retryAfterMs,
      missingIds: this.missingIds,
      cause: this.cause,
      ...options,
    });
    if (this.stack !== undefined) copy.stack = this.stack;
    return copy;
  }

  /**
   * A plain object for logs and JSON, without the stack or the cause.
   *
   * @returns The error's fields.
   */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      status: this.status,
      serverMessage: this.serverMessage,
      serverCode: this.serverCode,
      reason: this.reason,
      endpoint: this.endpoint,
      url: this.url,
      excerpt: this.excerpt,
      requestOrigin: this.requestOrigin,
      retryAfterMs: this.retryAfterMs,
      missingIds: this.missingIds,
    };
  }
}

/**
 * Tells whether a value is a {@link VaultError}, optionally with one of the given codes.
 *
 * @param error The value to test.
 * @param codes The codes to accept; any code when empty.
 * @returns Whether it is such an error.
 */
export function isVaultError(error: unknown, ...codes: VaultErrorCode[]): error is VaultError {
  return error instanceof VaultError && (codes.length === 0 || codes.includes(error.code));
}

/**
 * Masks password values in text a server wrote: `"pw": "…"` (JSON, or JSON quoted inside JSON) and
 * `pw=…` pairs. Error messages and bodies of the wrong shape often quote the record they concern.
 *
 * @param text The text.
 * @returns The text without password values.
 */
export function maskPasswords(text: string): string {
  return (
    text
      // Up to the quote that ends the value (before `,` or `}`), or the end: an escaped quote inside
      // the value does not end the masking. A value cut short is closed again.
      .replace(
        /(\\?"(?:pw|password)\\?"\s*:\s*\\?")[\s\S]*?(?=\\?"\s*[,}]|$)/gi,
        (match: string, open: string, offset: number, whole: string) =>
          offset + match.length < whole.length
            ? `${open}${REDACTED}`
            : `${open}${REDACTED}${open.endsWith('\\"') ? '\\"' : '"'}`,
      )
      .replace(/\b(pw|password)=\S+/gi, `$1=${REDACTED}`)
  );
}

/** A session token's shape (a JWT: `eyJ…` header, payload, signature). */
const JWT_SHAPE = /\beyJ[\w-]*\.[\w-]+\.[\w-]*/g;

/**
 * Removes session tokens from text, whoever's they are: anything shaped like a JWT, and the
 * credential after `Bearer`. For logs and messages that may quote a request or a token.
 *
 * @param text The text.
 * @returns The text with {@link REDACTED} in place of each token.
 */
export function withTokensRedacted(text: string): string {
  return text.replace(JWT_SHAPE, REDACTED).replace(/(Bearer\s+)\S+/gi, `$1${REDACTED}`);
}

/** Removes secrets from text: replaces every secret by {@link REDACTED}. */
export type Redactor = (text: string) => string;

/**
 * Creates a redactor for the given secrets: each is replaced verbatim and percent-encoded, and any
 * `apikey=` query value is replaced whatever it holds.
 *
 * @param secrets The secrets to remove; empty strings are ignored.
 * @returns The redactor.
 */
export function createRedactor(secrets: readonly string[]): Redactor {
  const variants = new Set<string>();
  for (const secret of secrets) {
    if (secret.length === 0) continue;
    variants.add(secret);
    variants.add(encodeURIComponent(secret));
  }
  const sorted = [...variants].sort((a, b) => b.length - a.length);
  return (text: string) => {
    let out = text.replace(/([?&]api_?key=)[^&#\s"']*/gi, `$1${REDACTED}`);
    for (const secret of sorted) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    }
    return out;
  };
}

/**
 * Turns anything thrown into a {@link VaultError}, redacting what it keeps.
 *
 * @param error The thrown value.
 * @param redact The redactor of the client that caught it.
 * @returns A VaultError; the same one when it already was.
 */
export function toVaultError(error: unknown, redact: Redactor = createRedactor([])): VaultError {
  if (error instanceof VaultError) return error;
  const name = error instanceof Error ? error.name : 'Error';
  const message = redact(error instanceof Error ? error.message : String(error));
  const cause = new Error(message);
  cause.name = name;
  if (name === 'TimeoutError')
    return new VaultError('timeout', 'The vault did not answer in time.', { cause });
  return new VaultError('network', `Could not reach the vault: ${message}`, { cause });
}

/** The longest piece of a server's own words that {@link serverWordsOf} keeps. */
const MAX_SERVER_WORDS = 160;

/**
 * The server's own words about an error, short and redacted, for showing next to a plain
 * sentence: its `err` message, or for a body that was not JSON (a database error, an HTML page)
 * the excerpt of it. First line only, spaces collapsed, at most `maxLength` characters.
 *
 * @param error The thrown value.
 * @param redact Removes secrets the caller knows of (the client's `redact`); the error's own
 *   fields are already redacted.
 * @param maxLength The longest text kept. Default 160.
 * @returns The words, or `undefined` when the server said nothing.
 * @example
 * ```ts
 * serverWordsOf(error); // 'User does not exist'
 * ```
 */
export function serverWordsOf(
  error: unknown,
  redact: Redactor = (text) => text,
  maxLength: number = MAX_SERVER_WORDS,
): string | undefined {
  if (!(error instanceof VaultError)) return undefined;
  const source =
    error.serverMessage ??
    (error.code === 'invalid_response' || error.code === 'server' ? error.excerpt : undefined);
  if (source === undefined) return undefined;
  const line = maskPasswords(redact(source))
    .split(/\r?\n/)
    .map((part) => part.trim())
    .find((part) => part !== '')
    ?.replace(/\s+/g, ' ');
  if (line === undefined) return undefined;
  return line.length > maxLength ? `${line.slice(0, maxLength - 1)}…` : line;
}

/**
 * A plain sentence for people, followed by the server's own words when it said something:
 * `not found in the vault (it may have been deleted). The vault said: "User does not exist".` (Words
 * that end with their own full stop end the message: `… The vault said: "Access denied."`.)
 *
 * @param sentence The plain sentence (the adapter's words for the error's code).
 * @param error The thrown value.
 * @param redact Removes secrets the caller knows of.
 * @returns The sentence, with the server's words when there are any.
 */
export function withServerWords(sentence: string, error: unknown, redact?: Redactor): string {
  const words = serverWordsOf(error, redact);
  if (words === undefined) return sentence;
  const stop = /[.!?]$/.test(sentence) ? '' : '.';
  // Words that end a sentence themselves close it: `"Only an admin key may…."`, never `."."`.
  const end = /[.!?…]$/.test(words) ? '' : '.';
  return `${sentence}${stop} The vault said: "${words.replace(/"/g, "'")}"${end}`;
}
