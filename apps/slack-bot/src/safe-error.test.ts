import { createRedactor, VaultError } from '@vaultline/protocol';
import { describe, expect, it } from 'vitest';
import { errorFields } from './safe-error.ts';

describe('errorFields', () => {
  it('keeps the code, the status and the server’s err message, masked and cut', () => {
    const error = new VaultError('invalid_request', 'add/item failed: … (HTTP 400).', {
      status: 400,
      serverMessage: `Refused {"label":"x","pw":"Leaky-1"} key-abc ${'z'.repeat(300)}`,
    });
    const fields = errorFields(error, createRedactor(['key-abc']));
    expect(fields.code).toBe('invalid_request');
    expect(fields.status).toBe(400);
    expect(fields.err).not.toContain('Leaky-1');
    expect(fields.err).not.toContain('key-abc');
    expect(fields.err.length).toBeLessThanOrEqual(161);
  });
});
