import { describe, expect, it } from 'vitest';
import { loggableError } from './logger.ts';

describe('loggableError', () => {
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
