import { VaultError } from '@vaultline/protocol';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { RateLimitedError, VaultServerError } from '../errors.ts';
import { createLogger } from '../logger.ts';
import { StoreError } from '../store/errors.ts';
import type { AppEnv } from './app-env.ts';
import {
  apiErrorHandler,
  apiNotFound,
  INTERNAL_ERROR,
  isDatabaseUnavailable,
  toApiError,
} from './error-mapping.ts';

describe('isDatabaseUnavailable', () => {
  const coded = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

  it.each([
    ['a refused connection', coded('ECONNREFUSED')],
    ['a reset connection', coded('ECONNRESET')],
    ['an administrator shutdown', coded('57P01', 'terminating connection due to administrator command')],
    ['a server starting up', coded('57P03', 'the database system is starting up')],
    ['no connection slot', coded('53300')],
    ['a connection exception', coded('08006')],
    ['a lost connection', new Error('Connection terminated unexpectedly')],
    ['every address refused', new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')])],
    ['a wrapped one', new Error('query failed', { cause: coded('ECONNREFUSED') })],
  ])('knows %s', (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(toApiError(error)).toMatchObject({ status: 503, headers: { 'retry-after': '2' } });
  });

  it.each([
    ['a syntax error', coded('42601')],
    ['a unique violation', coded('23505')],
    ['a plain error', new Error('boom')],
    ['nothing', undefined],
  ])('leaves %s alone', (_what, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe('toApiError', () => {
  it('maps the server errors with their own status', () => {
    expect(toApiError(new VaultServerError('rate_limited', 'Slow down.'))).toEqual({
      status: 429,
      body: { err: 'Slow down.', code: 'rate_limited' },
    });
    expect(toApiError(new VaultServerError('invalid_request', 'Taken.', 409))?.status).toBe(409);
    expect(toApiError(new VaultError('invalid_request', 'Expected a numeric id.'))).toEqual({
      status: 400,
      body: { err: 'Expected a numeric id.', code: 'invalid_request' },
    });
  });

  it.each([
    ['invalid', 400, 'invalid_request'],
    ['not_found', 404, 'not_found'],
    ['refused', 403, 'forbidden'],
    ['conflict', 409, 'invalid_request'],
    ['too_large', 413, 'too_large'],
  ] as const)('maps the store error %s to %i %s', (kind, status, code) => {
    expect(toApiError(new StoreError(kind, 'What happened.'))).toEqual({
      status,
      body: { err: 'What happened.', code },
    });
  });

  it('keeps the duplicate label apart among conflicts', () => {
    expect(
      toApiError(
        new StoreError(
          'conflict',
          'Label already exists: an item with a similar label exists.',
          'similar_label',
        ),
      )?.body.code,
    ).toBe('duplicate_label');
  });

  it('answers 409 to a failure caused by a concurrent change, and nothing for the unexpected', () => {
    for (const code of ['23503', '23505', '40001', '40P01']) {
      expect(toApiError(Object.assign(new Error('duplicate key value'), { code }))?.status).toBe(409);
    }
    expect(toApiError(new Error('boom'))).toBeUndefined();
    expect(toApiError(undefined)).toBeUndefined();
    expect(INTERNAL_ERROR).toEqual({ status: 500, body: { err: 'Internal server error.', code: 'server' } });
  });
});

describe('apiErrorHandler', () => {
  it('answers every error as JSON with the API headers, and logs only the unexpected', async () => {
    const lines: string[] = [];
    const app = new Hono<AppEnv>();
    app.onError(apiErrorHandler(createLogger('info', { write: (line) => lines.push(line) })));
    app.notFound(apiNotFound);
    app.get('/limited', () => {
      throw new RateLimitedError('Slow down.', 7);
    });
    app.get('/store', () => {
      throw new StoreError('refused', 'Not yours.');
    });
    app.get('/boom', () => {
      throw Object.assign(new Error('syntax error at or near'), { parameters: ['pw-value'] });
    });
    const limited = await app.request('/limited');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(limited.headers.get('cache-control')).toBe('no-store');
    expect(await limited.json()).toEqual({ err: 'Slow down.', code: 'rate_limited' });
    const store = await app.request('/store');
    expect([store.status, await store.json()]).toEqual([403, { err: 'Not yours.', code: 'forbidden' }]);
    const boom = await app.request('/boom');
    expect([boom.status, await boom.json()]).toEqual([500, INTERNAL_ERROR.body]);
    const missing = await app.request('/nowhere');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/application\/json/);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/request failed/);
    expect(lines[0]).not.toContain('pw-value');
  });
});
