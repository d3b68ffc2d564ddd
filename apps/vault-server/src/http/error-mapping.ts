/**
 * Every error the server answers with, mapped to a status and `{"err","code"}` in one place: the
 * server's own `VaultServerError` (and the core's `VaultError` from the decoders), the store's
 * `StoreError`, and database failures caused by a concurrent change.
 *
 * @module
 */

import { VaultError, type VaultErrorCode } from '@vaultline/protocol';
import type { ErrorHandler, NotFoundHandler } from 'hono';
import type { Logger } from 'pino';
import { STATUS_OF } from '../constants.ts';
import { NO_SUCH_OPERATION_MESSAGE, RateLimitedError } from '../errors.ts';
import { loggableError } from '../logger.ts';
import { StoreError, type StoreErrorKind } from '../store/errors.ts';
import type { ApiAnswer } from './api-call.ts';
import { type ErrorBody, errorAnswer, toResponse } from './api-response.ts';
import type { AppEnv } from './app-env.ts';

/** An error as the API answers it. */
export interface ApiError {
  /** The HTTP status. */
  readonly status: number;
  /** The body. */
  readonly body: ErrorBody;
  /** Extra headers (`retry-after`). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** The API code and status of each kind of store error. */
const STORE_ERRORS: Readonly<Record<StoreErrorKind, { code: VaultErrorCode; status: number }>> = {
  invalid: { code: 'invalid_request', status: 400 },
  not_found: { code: 'not_found', status: 404 },
  refused: { code: 'forbidden', status: 403 },
  conflict: { code: 'invalid_request', status: 409 },
  too_large: { code: 'too_large', status: 413 },
};

// Foreign key, unique, serialization and deadlock failures come from a concurrent change.
const CONFLICT_SQL_STATES = new Set(['23503', '23505', '40001', '40P01']);

/**
 * SQL states of a database that cannot serve now: connection exceptions (class 08), an
 * administrator's or a crash's shutdown, a server starting up, no connection slot left.
 */
const UNAVAILABLE_SQL_STATES = new Set(['57P01', '57P02', '57P03', '53300']);
/** Network errors of a connection to the database. */
const UNAVAILABLE_NET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** How node-postgres says its connection is gone (these errors carry no code). */
const UNAVAILABLE_MESSAGES =
  /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Connection ended|Client was closed)/;

/** The `Retry-After` of an answer while the database is unreachable, in seconds. */
export const DATABASE_RETRY_AFTER_S = 2;

/**
 * Whether an error says the database cannot be reached now (PostgreSQL restarting, a network cut,
 * no connection slot), as opposed to a defect: such a request is answered 503, like `/readyz`.
 *
 * @param error Whatever was thrown.
 * @returns True for a connection failure.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 3) return false;
  if (error instanceof AggregateError && error.errors.length > 0) {
    return error.errors.every((inner) => isDatabaseUnavailable(inner, depth + 1));
  }
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (UNAVAILABLE_NET_CODES.has(code) || UNAVAILABLE_SQL_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) {
      return true;
    }
  }
  const message = (error as { message?: unknown }).message;
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
  return isDatabaseUnavailable((error as { cause?: unknown }).cause, depth + 1);
}

/**
 * Maps an error to the API's answer.
 *
 * @param error Whatever was thrown.
 * @returns The answer, or `undefined` for an unexpected error (a 500 the caller logs).
 */
export function toApiError(error: unknown): ApiError | undefined {
  if (error instanceof RateLimitedError) {
    return {
      status: error.status ?? 429,
      body: { err: error.message, code: error.code },
      headers: { 'retry-after': String(error.retryAfterSeconds) },
    };
  }
  if (error instanceof VaultError) {
    const status = error.status ?? STATUS_OF[error.code] ?? 500;
    return { status, body: { err: error.message, code: error.code, reason: error.reason } };
  }
  if (error instanceof StoreError) {
    const mapped = STORE_ERRORS[error.kind];
    // The one conflict clients tell apart: a similar label (the store says so with its reason).
    const code = error.reason === 'similar_label' ? 'duplicate_label' : mapped.code;
    return { status: mapped.status, body: { err: error.message, code } };
  }
  const sqlState = (error as { code?: unknown } | null)?.code;
  if (typeof sqlState === 'string' && CONFLICT_SQL_STATES.has(sqlState)) {
    return {
      status: 409,
      body: {
        err: 'The request conflicts with a change made at the same time; try again.',
        code: 'invalid_request',
      },
    };
  }
  if (isDatabaseUnavailable(error)) {
    return {
      status: 503,
      body: { err: 'The database is not reachable; try again shortly.', code: 'server' },
      headers: { 'retry-after': String(DATABASE_RETRY_AFTER_S) },
    };
  }
  return undefined;
}

/** The answer to an unexpected error: nothing of the error itself is shown. */
export const INTERNAL_ERROR: ApiError = {
  status: 500,
  body: { err: 'Internal server error.', code: 'server' },
};

/**
 * The answer to any error: mapped through {@link toApiError}; an unexpected error is logged (see
 * {@link loggableError}) and answered 500 without its details.
 *
 * @param error Whatever was thrown.
 * @param logger The logger.
 * @returns The answer.
 */
export function answerError(error: unknown, logger: Logger): ApiAnswer {
  const mapped = toApiError(error);
  if (mapped) return errorAnswer(mapped.status, mapped.body, mapped.headers);
  logger.error({ err: loggableError(error) }, 'request failed');
  return errorAnswer(INTERNAL_ERROR.status, INTERNAL_ERROR.body);
}

/** What a path that is no operation is told. */
export const NO_SUCH_OPERATION: ApiError = {
  status: 404,
  body: { err: NO_SUCH_OPERATION_MESSAGE, code: 'invalid_request' },
};

/**
 * The Hono app's `onError` (the routes outside the API pipeline): {@link answerError}.
 *
 * @param logger The logger.
 * @returns The handler.
 */
export function apiErrorHandler(logger: Logger): ErrorHandler<AppEnv> {
  return (error) => toResponse(answerError(error, logger));
}

/** The Hono app's `notFound`: {@link NO_SUCH_OPERATION}. */
export const apiNotFound: NotFoundHandler<AppEnv> = () =>
  toResponse(errorAnswer(NO_SUCH_OPERATION.status, NO_SUCH_OPERATION.body));
