import { VaultError, type VaultErrorCode, type VaultErrorReason } from '@vaultline/protocol';
import type { ApiProfile } from '@vaultline/protocol/wire';
import { STATUS_OF } from './constants.ts';

/**
 * An error the server answers with: `{"err": message, "code": code}` (and `reason` when it has one)
 * and an HTTP status. Messages never carry a key, a password or a write path's values.
 */
export class VaultServerError extends VaultError {
  override name = 'VaultServerError';

  constructor(code: VaultErrorCode, message: string, status?: number, reason?: VaultErrorReason) {
    super(code, message, { status: status ?? STATUS_OF[code] ?? 500, reason });
  }
}

/**
 * The upstream TeamPass refused a request for what it asked (not found, a duplicate label…): the
 * server's words for it, and TeamPass's own, which a key of the `teampass` profile gets unchanged.
 */
export class UpstreamRefusalError extends VaultServerError {
  override name = 'UpstreamRefusalError';

  /** What TeamPass said, as it said it; `undefined` when it said nothing the client kept. */
  readonly upstreamWords: string | undefined;

  constructor(code: VaultErrorCode, message: string, upstreamWords: string | undefined) {
    super(code, message);
    this.upstreamWords = upstreamWords;
  }
}

/** Shorthand for a 400. */
export function invalid(message: string): VaultServerError {
  return new VaultServerError('invalid_request', message);
}

/** Shorthand for a 404. */
export function notFound(message: string): VaultServerError {
  return new VaultServerError('not_found', message);
}

/** Shorthand for a 403. */
export function forbidden(message: string): VaultServerError {
  return new VaultServerError('forbidden', message);
}

/**
 * A `rate_limited` answer that tells the client when to try again (`Retry-After`): 429 for a
 * client over its own limit, 503 for a server at its bound (too many transfers at once).
 */
export class RateLimitedError extends VaultServerError {
  override name = 'RateLimitedError';

  /** Seconds until the client may try again. */
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number, status: 429 | 503 = 429) {
    super('rate_limited', message, status);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** What a path that names no operation is told. */
export const NO_SUCH_OPERATION_MESSAGE = 'No such operation: expected /api/index.php/<verb>/<object>/….';

/** A path under the API that names no operation (404; TeamPass's profile: 405 "Method not authorized"). */
export class NoSuchOperationError extends VaultServerError {
  override name = 'NoSuchOperationError';

  constructor() {
    super('invalid_request', NO_SUCH_OPERATION_MESSAGE, 404);
  }
}

/** An operation asked with another HTTP method than its row's (400; TeamPass's profile: 405). */
export class WrongMethodError extends VaultServerError {
  override name = 'WrongMethodError';
}

/**
 * A path segment its row's decoder refused (400). `segment` says which one, for the TeamPass
 * profile: item values are TeamPass's "Item definition not complete", ids "… not numeric".
 */
export class SegmentDecodeError extends VaultServerError {
  override name = 'SegmentDecodeError';
  /** The segment of the row whose decoder refused the value. */
  readonly segment: unknown;

  constructor(message: string, segment: unknown) {
    super('invalid_request', message);
    this.segment = segment;
  }
}

/**
 * A key used from an address its allow-list refuses (403; TeamPass's profile: 405 "Ip address not
 * allowed."). It carries the key's profile: the key is known, but the request got no further.
 */
export class AddressNotAllowedError extends VaultServerError {
  override name = 'AddressNotAllowedError';
  /** The key's answer profile. */
  readonly profile: ApiProfile;

  constructor(profile: ApiProfile) {
    super('forbidden', 'Ip address not allowed for this API key.');
    this.profile = profile;
  }
}
