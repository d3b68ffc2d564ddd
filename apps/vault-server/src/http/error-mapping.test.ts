import { VaultError } from '@vaultline/protocol';
import { describe, expect, it } from 'vitest';
import { VaultServerError } from '../errors.ts';
import { StoreError } from '../store/errors.ts';
import { INTERNAL_ERROR, loggableError, toApiError } from './error-mapping.ts';

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
      toApiError(new StoreError('conflict', 'Label already exists: an item with a similar label exists.'))
        ?.body.code,
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

  it('logs only the name, message and SQL state of an unexpected error', () => {
    const error = Object.assign(new Error('relation does not exist'), {
      code: '42P01',
      parameters: ['a secret value'],
    });
    expect(loggableError(error)).toEqual({
      name: 'Error',
      message: 'relation does not exist',
      code: '42P01',
    });
    expect(JSON.stringify(loggableError(error))).not.toContain('secret');
    expect(loggableError('text')).toEqual({ name: 'string', message: 'a non-Error value was thrown' });
  });
});
