import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED, VaultError } from '../errors.ts';
import { endpoints } from '../legacy/endpoints.ts';
import { classifyError, excerptOf, interpretJson, type ResponseOrigin } from './response.ts';

const KEY = 'resp0nse-test-key-0123456789abcdef';
const redact = createRedactor([KEY]);

function origin(name: keyof typeof endpoints): ResponseOrigin {
  return { endpoint: name, definition: endpoints[name], url: `http://h/x?apikey=${REDACTED}`, redact };
}

function fail(run: () => unknown): VaultError {
  try {
    run();
  } catch (error) {
    if (error instanceof VaultError) return error;
    throw error;
  }
  throw new Error('expected a VaultError');
}

describe('classifyError', () => {
  it.each([
    [200, 'API access not allowed.', undefined, 'api_disabled'],
    [405, 'Ip address not allowed.', undefined, 'forbidden'],
    [500, 'Something happen ... but what ?', undefined, 'unauthorized'],
    [405, "This api_key [REDACTED] doesn't exist", 'API_KEY_NOT_FOUND', 'unauthorized'],
    [405, "This api_key [REDACTED] doesn't exist", undefined, 'unauthorized'],
    [405, 'Method not authorized', 'METHOD_NOT_AUTHORIZED', 'invalid_request'],
    [200, 'URL format is not following requirements', undefined, 'invalid_request'],
    [405, 'Item definition not complete', undefined, 'invalid_request'],
    [405, 'Item definition not numeric', undefined, 'invalid_request'],
    [200, 'No results', undefined, 'not_found'],
    [200, 'Label already exists', undefined, 'duplicate_label'],
    [200, 'Label or Password or Folder ID is missing', undefined, 'invalid_request'],
    [200, 'Password is too long', undefined, 'too_large'],
    [200, 'Password is empty', undefined, 'invalid_request'],
    [200, 'Folder ID does not exist', undefined, 'not_found'],
    [200, 'No data exists', 'NO_DATA_EXIST', 'not_found'],
    [200, 'User does not exist', undefined, 'not_found'],
    [200, 'HTML tags not allowed', undefined, 'invalid_request'],
    [200, 'Title only with numbers not allowed', undefined, 'invalid_request'],
    [200, 'complexity level was not reached', undefined, 'invalid_request'],
    [200, 'No folder specified', undefined, 'invalid_request'],
    [200, 'No parameters given', undefined, 'invalid_request'],
    // The Vaultline server's words, which its teampass profile answers with 200 and no code.
    [200, 'This key may not add items to folder 3.', undefined, 'forbidden'],
    [200, "A user-bound key may only read its own user's items and folders.", undefined, 'forbidden'],
    [200, 'Only an admin key may create public folders.', undefined, 'forbidden'],
    [200, 'The file is larger than the limit of 1024 bytes.', undefined, 'too_large'],
    [200, 'Folder 4 still holds items; delete or move them first.', undefined, 'invalid_request'],
    [429, 'Too many requests', undefined, 'rate_limited'],
    [200, 'whatever', 'rate_limited', 'rate_limited'],
    [401, 'who are you', undefined, 'unauthorized'],
    [403, 'no', undefined, 'forbidden'],
    [404, 'gone', undefined, 'not_found'],
    [409, 'clash', undefined, 'duplicate_label'],
    [413, 'big', undefined, 'too_large'],
    [503, 'down', undefined, 'server'],
    [200, 'something new', undefined, 'invalid_request'],
    [200, 'something new', 'SOME_NEW_CODE', 'invalid_request'],
  ] as const)('HTTP %d %j (code %j) → %s', (status, message, serverCode, code) => {
    expect(classifyError(status, message, serverCode)).toBe(code);
  });
});

describe('the reason of an unauthorized answer', () => {
  it.each([
    [401, '{"err":"API key revoked.","code":"unauthorized","reason":"key_revoked"}'],
    [401, '{"err":"API key revoked.","code":"unauthorized"}'],
    [200, '{"err":"API key revoked."}'],
    [405, '{"err":"API key revoked"}'],
  ])('HTTP %d %s is unauthorized because the key was revoked', (status, body) => {
    const error = fail(() => interpretJson(status, body, origin('readItems')));
    expect({ code: error.code, reason: error.reason }).toEqual({
      code: 'unauthorized',
      reason: 'key_revoked',
    });
  });

  it.each([
    [401, '{"err":"Invalid API key.","code":"unauthorized"}'],
    [405, `{"err":"This api_key ${KEY} doesn't exist","code":"API_KEY_NOT_FOUND"}`],
    [401, '{"err":"Invalid API key.","code":"unauthorized","reason":"made_up"}'],
    [404, '{"err":"User does not exist: \\"revoked\\".","code":"not_found","reason":"key_revoked"}'],
  ])('HTTP %d %s carries no reason', (status, body) => {
    expect(fail(() => interpretJson(status, body, origin('readItems'))).reason).toBeUndefined();
  });
});

describe('excerptOf', () => {
  it('masks JSON passwords, escaped quotes included, even when cut short', () => {
    expect(excerptOf('[{"pw":"a\\"b","x":1},{"pw" : "', redact)).toBe(
      '[{"pw":"[REDACTED]","x":1},{"pw" : "[REDACTED]"',
    );
  });

  it('is one line, at most 160 characters, and redacted', () => {
    const excerpt = excerptOf(`line one\n\n  ${KEY}\tline two ${'x'.repeat(500)}`, redact);
    expect(excerpt.startsWith(`line one ${REDACTED} line two`)).toBe(true);
    expect(excerpt).not.toContain('\n');
    expect(excerpt.length).toBe(161);
    expect(excerpt.endsWith('…')).toBe(true);
  });
});

describe('interpretJson', () => {
  it('returns the parsed, validated value', () => {
    expect(interpretJson(200, '{"status":"OK"}', origin('deleteItems'))).toEqual({ status: 'OK' });
    expect(interpretJson(200, 'OK', origin('deleteFolders'))).toEqual({ status: 'OK' });
    expect(interpretJson(200, ' OK\n', origin('deleteFolders'))).toEqual({ status: 'OK' });
  });

  it('turns No results into [] on collection reads and not_found on writes', () => {
    expect(interpretJson(200, '{"err":"No results"}', origin('readItems'))).toEqual([]);
    expect(fail(() => interpretJson(200, '{"err":"No results"}', origin('addItem'))).code).toBe('not_found');
    expect(fail(() => interpretJson(200, '{"err":"No results"}', origin('downloadFile'))).code).toBe(
      'not_found',
    );
  });

  it('treats a No results that carries a code as an error', () => {
    expect(
      fail(() => interpretJson(200, '{"err":"No results","code":"NO_DATA_EXIST"}', origin('readItems'))).code,
    ).toBe('not_found');
  });

  it('reads the fork’s {"status":"error"} answers as errors', () => {
    const error = fail(() =>
      interpretJson(200, '{"status":"error","message":"file too large"}', origin('addFile')),
    );
    expect(error.code).toBe('too_large');
    expect(error.serverMessage).toBe('file too large');
    expect(fail(() => interpretJson(200, '{"status":"error"}', origin('addFile'))).serverMessage).toBe(
      'error',
    );
  });

  it('reads an err that is not text', () => {
    const error = fail(() => interpretJson(200, '{"err":{"deep":1}}', origin('readItems')));
    expect(error.serverMessage).toBe('[object Object]');
  });

  it('maps a JSON body with an error status to that status', () => {
    const error = fail(() => interpretJson(404, '[]', origin('readItems')));
    expect(error).toMatchObject({ code: 'not_found', status: 404, excerpt: '[]' });
    expect(fail(() => interpretJson(502, '{}', origin('readItems'))).code).toBe('server');
  });

  it('turns a body of the wrong shape into invalid_response with the issues and where', () => {
    const error = fail(() => interpretJson(200, '[{"id":"x","label":"a"}]', origin('readItems')));
    expect(error.code).toBe('invalid_response');
    expect(error.message).toMatch(/^read\/items answered a body of an unexpected shape at 0\.id/);
    expect(error.issues?.length).toBeGreaterThan(0);
    const keyed = fail(() => interpretJson(200, '{"7":{"id":"7"}}', origin('readUserItems')));
    expect(keyed.message).toMatch(/unexpected shape at 7\.label: /);
  });

  it('keeps no record values in the issues: a bad record must not carry its passwords into logs', () => {
    const body = JSON.stringify({
      '7': { id: '7', label: 'a', pw: 'pw-of-seven' },
      '8': { id: 'x', pw: 'pw-8' },
    });
    const error = fail(() => interpretJson(200, body, origin('readUserItems')));
    expect(error.message).toMatch(/at 8\.id: Expected a numeric id\.$/);
    const shown = inspect(error.issues, { depth: 20 });
    expect(shown).not.toContain('pw-of-seven');
    expect(shown).not.toContain('pw-8');
    expect(error.issues?.[0]).toMatchObject({ kind: 'schema', type: 'union', path: [] });
    expect(error.excerpt).toBe(
      '{"7":{"id":"7","label":"a","pw":"[REDACTED]"},"8":{"id":"x","pw":"[REDACTED]"}}',
    );
  });

  it('describes non-JSON bodies by kind', () => {
    expect(fail(() => interpretJson(200, '', origin('readItems'))).message).toBe(
      'read/items expected JSON, received an empty body (HTTP 200).',
    );
    expect(fail(() => interpretJson(200, '<br />\n<b>Fatal error</b>', origin('readItems'))).message).toMatch(
      /received an HTML page \(HTTP 200\): <br \/> <b>Fatal error<\/b>\.$/,
    );
    expect(
      fail(() => interpretJson(200, 'You have an error in your SQL syntax', origin('readItems'))).message,
    ).toMatch(/received a database error/);
    expect(fail(() => interpretJson(200, 'hello', origin('readItems'))).message).toMatch(
      /text that is not JSON/,
    );
    expect(fail(() => interpretJson(502, '<html>Bad gateway</html>', origin('readItems'))).code).toBe(
      'server',
    );
    expect(fail(() => interpretJson(403, 'OK', origin('deleteItems'))).code).toBe('forbidden');
  });
});
