import { createRedactor, VaultError } from '@vaultline/protocol';
import { describe, expect, it } from 'vitest';
import { errorFields, maskPasswords } from './safe-error.ts';

describe('maskPasswords', () => {
  it.each([
    ['{"pw":"S3cret","x":1}', '{"pw":"[REDACTED]","x":1}'],
    ['x {\\"pw\\":\\"S3cret\\"} y', 'x {\\"pw\\":\\"[REDACTED]\\"} y'],
    ['pw=S3cret rest', 'pw=[REDACTED] rest'],
  ])('masks %j', (input, output) => {
    expect(maskPasswords(input)).toBe(output);
  });

  it('masks a value holding an escaped quote whole', () => {
    const out = maskPasswords('{"password" : "Se\\"cr3t"}');
    expect(out).not.toMatch(/Se|cr3t/);
  });
});

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
