import { createRedactor, VaultError } from '@vaultline/protocol';
import { describe, expect, it } from 'vitest';
import { errorFields } from './safe-error.ts';

const redact = createRedactor(['key-abc']);

describe('errorFields', () => {
  it('keeps the code, the status, the operation and a fixed wording of the server', () => {
    const error = new VaultError('not_found', 'read/userfolders failed: User does not exist (HTTP 200).', {
      status: 200,
      serverMessage: 'User does not exist',
      endpoint: 'readUserFolders',
    });
    expect(errorFields(error, redact)).toEqual({
      code: 'not_found',
      status: 200,
      endpoint: 'readUserFolders',
      err: 'User does not exist',
      withheld: undefined,
    });
  });

  it.each([
    ['a pw value', `Refused {"label":"x","pw":"Leaky-1"} key-abc ${'z'.repeat(300)}`],
    ['a python dict', "Refused {'pw': 'Leaky-1'}"],
    ['pw colon', 'pw:Leaky-1'],
    ['decrypt failed', 'decrypt failed for Leaky-1'],
  ])('withholds any other server text (%s), and the error’s message that quotes it', (_name, said) => {
    const error = new VaultError('invalid_request', `add/item failed: ${said} (HTTP 400).`, {
      status: 400,
      serverMessage: said,
    });
    const fields = errorFields(error, redact);
    expect(fields).toMatchObject({ code: 'invalid_request', status: 400, withheld: true });
    expect(fields.err).toBeUndefined();
    expect(JSON.stringify(fields)).not.toContain('Leaky-1');
  });

  it('withholds the excerpt of a body that was not understood', () => {
    const error = new VaultError('invalid_response', 'read/items expected JSON: <b>Leaky-1</b>.', {
      status: 200,
      excerpt: '<b>Leaky-1</b>',
    });
    expect(JSON.stringify(errorFields(error, redact))).not.toContain('Leaky-1');
  });

  it('keeps the core’s own sentence of a transport failure, and the message of a bug, masked and cut', () => {
    const network = new VaultError('network', 'readItems: could not reach the vault (ECONNREFUSED).');
    expect(errorFields(network, redact).err).toBe('readItems: could not reach the vault (ECONNREFUSED).');
    const bug = errorFields(
      new TypeError(`args.respond is not a function key-abc ${'y'.repeat(300)}`),
      redact,
    );
    expect(bug.code).toBe('unexpected');
    expect(bug.err?.startsWith('TypeError: args.respond is not a function [REDACTED]')).toBe(true);
    expect(bug.err?.length).toBeLessThanOrEqual(161);
  });

  it('keeps only the name of a SyntaxError, whose message quotes what it failed to parse', () => {
    let error: unknown;
    try {
      JSON.parse('{"pw": Leaky-1');
    } catch (thrown) {
      error = thrown;
    }
    expect(errorFields(error, redact).err).toBe('SyntaxError');
  });
});
