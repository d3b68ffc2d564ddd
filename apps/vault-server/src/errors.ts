import { VaultError, type VaultErrorCode } from '@vaultline/protocol';
import { STATUS_OF } from './constants.ts';

/**
 * An error the server answers with: `{"err": message, "code": code}` and an HTTP status. Messages
 * never carry a key, a password or a write path's values.
 */
export class VaultServerError extends VaultError {
  override name = 'VaultServerError';

  constructor(code: VaultErrorCode, message: string, status?: number) {
    super(code, message, { status: status ?? STATUS_OF[code] ?? 500 });
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
