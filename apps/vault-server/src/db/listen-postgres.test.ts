import { describe, expect, it } from 'vitest';
import { reasonOf } from './listen-postgres.ts';

describe('reasonOf', () => {
  const url = 'postgres://vault:s3cr%40t-pw@db.internal:5432/vault';

  it('logs the name, message and SQL state of why the connection was lost', () => {
    const error = Object.assign(new Error('terminating connection due to administrator command'), {
      code: '57P01',
      detail: 'anything else the driver carries',
    });
    expect(reasonOf(error, url)).toEqual({
      name: 'Error',
      message: 'terminating connection due to administrator command',
      code: '57P01',
    });
    expect(reasonOf(undefined, url)).toEqual({ name: 'Error', message: 'the connection was closed' });
  });

  it('takes the connection string and its password (as written and decoded) out of the message', () => {
    for (const message of [
      `could not connect to ${url}`,
      'password s3cr%40t-pw refused',
      'password s3cr@t-pw refused',
    ]) {
      const reason = reasonOf(new Error(message), url);
      expect(reason.message).toContain('[redacted]');
      expect(reason.message).not.toMatch(/s3cr/);
    }
    const keyValue = 'host=db.internal password=kv-secret-1';
    expect(reasonOf(new Error(`bad string ${keyValue}`), keyValue).message).toBe('bad string [redacted]');
  });
});
