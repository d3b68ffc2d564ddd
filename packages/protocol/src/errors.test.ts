import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  createRedactor,
  isVaultError,
  maskPasswords,
  REDACTED,
  toVaultError,
  VAULT_ERROR_CODES,
  VaultError,
  withServerWords,
  withTokensRedacted,
} from './errors.ts';

const KEY = 'k3y;with=odd/chars+&more';

describe('createRedactor', () => {
  const redact = createRedactor([KEY, '']);

  it('replaces the key verbatim and percent-encoded', () => {
    expect(redact(`a ${KEY} b`)).toBe(`a ${REDACTED} b`);
    expect(redact(`a ${encodeURIComponent(KEY)} b`)).toBe(`a ${REDACTED} b`);
    expect(redact(`${KEY}${KEY}`)).toBe(`${REDACTED}${REDACTED}`);
  });

  it('replaces any apikey= query value, whatever it holds', () => {
    expect(redact('http://h/api/index.php/read/items/1?apikey=other-key&x=1')).toBe(
      `http://h/api/index.php/read/items/1?apikey=${REDACTED}&x=1`,
    );
    expect(redact('GET /x?api_key=zzz HTTP/1.1')).toBe(`GET /x?api_key=${REDACTED} HTTP/1.1`);
    expect(redact('/x?a=1&APIKEY=zzz')).toBe(`/x?a=1&APIKEY=${REDACTED}`);
  });

  it('leaves text without secrets alone and ignores empty secrets', () => {
    expect(redact('nothing here')).toBe('nothing here');
    expect(createRedactor([''])('abc')).toBe('abc');
  });
});

describe('VaultError', () => {
  it('carries a code, a status and details, and serialises without stack or cause', () => {
    const cause = new Error('inner');
    const error = new VaultError('not_found', 'read/items failed.', {
      status: 200,
      serverMessage: 'No results',
      serverCode: 'NO_DATA_EXIST',
      endpoint: 'readItems',
      url: 'http://h/x',
      excerpt: 'e',
      issues: [1],
      cause,
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('VaultError');
    expect(error.cause).toBe(cause);
    expect(error.issues).toEqual([1]);
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      name: 'VaultError',
      code: 'not_found',
      message: 'read/items failed.',
      status: 200,
      serverMessage: 'No results',
      serverCode: 'NO_DATA_EXIST',
      endpoint: 'readItems',
      url: 'http://h/x',
      excerpt: 'e',
    });
  });

  it('carries the reason of its code and shows it in JSON', () => {
    const error = new VaultError('unauthorized', 'read/items failed.', {
      status: 401,
      reason: 'key_revoked',
    });
    expect(error.reason).toBe('key_revoked');
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({ code: 'unauthorized', reason: 'key_revoked' });
    expect(new VaultError('unauthorized', 'x').reason).toBeUndefined();
  });

  it('has no cause when none is given', () => {
    expect('cause' in new VaultError('server', 'x')).toBe(false);
  });

  it('isVaultError matches any code, or only the given ones', () => {
    const error = new VaultError('timeout', 'x');
    expect(isVaultError(error)).toBe(true);
    expect(isVaultError(error, 'timeout', 'network')).toBe(true);
    expect(isVaultError(error, 'network')).toBe(false);
    expect(isVaultError(new Error('x'))).toBe(false);
    expect(isVaultError('timeout')).toBe(false);
  });

  it('lists fourteen distinct codes', () => {
    expect(new Set(VAULT_ERROR_CODES).size).toBe(14);
  });

  it('carries the wait a 429 asked for, in JSON too', () => {
    const error = new VaultError('rate_limited', 'slow down', { status: 429, retryAfterMs: 12_000 });
    expect(error.retryAfterMs).toBe(12_000);
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({ code: 'rate_limited', retryAfterMs: 12_000 });
    expect(new VaultError('rate_limited', 'x').retryAfterMs).toBeUndefined();
  });
});

describe('toVaultError', () => {
  const redact = createRedactor([KEY]);

  it('returns a VaultError unchanged', () => {
    const error = new VaultError('server', 'x');
    expect(toVaultError(error, redact)).toBe(error);
  });

  it('turns a TimeoutError into timeout and anything else into network, redacted', () => {
    const timeout = new Error(`timed out at ?apikey=${KEY}`);
    timeout.name = 'TimeoutError';
    expect(toVaultError(timeout, redact).code).toBe('timeout');
    const network = toVaultError(new TypeError(`fetch failed for ${KEY}`), redact);
    expect(network.code).toBe('network');
    expect(network.message).toBe(`Could not reach the vault: fetch failed for ${REDACTED}`);
    expect((network.cause as Error).name).toBe('TypeError');
    for (const error of [toVaultError(timeout, redact), network, toVaultError(`thrown ${KEY}`, redact)]) {
      expect(inspect(error, { depth: 10 })).not.toContain(KEY);
      expect(String(error.cause)).not.toContain(KEY);
    }
  });

  it('works without a redactor', () => {
    expect(toVaultError('boom').message).toBe('Could not reach the vault: boom');
  });
});

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

describe('VaultError.with', () => {
  it('copies every detail, changes only what it is given, and keeps the stack', () => {
    const cause = new Error('socket');
    const original = new VaultError('rate_limited', 'readItems failed: too many requests.', {
      status: 429,
      serverMessage: 'slow down',
      serverCode: 'LIMIT',
      endpoint: 'readItems',
      url: 'http://vault/api/index.php/read/items/1',
      excerpt: 'slow',
      issues: ['x'],
      cause,
    });
    const copy = original.with({ retryAfterMs: 2000 });
    expect(copy).not.toBe(original);
    expect(copy.toJSON()).toEqual({ ...original.toJSON(), retryAfterMs: 2000 });
    expect(copy.cause).toBe(cause);
    expect(copy.stack).toBe(original.stack);
    expect(original.with({ message: 'other' }).message).toBe('other');
  });
});

describe('withTokensRedacted', () => {
  it("removes JWT-shaped tokens and Bearer credentials, whoever's they are, and leaves the rest", () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJ1c2VybmFtZSI6ImFsaWNlIn0.c2lnbmF0dXJl-_x';
    expect(withTokensRedacted(`token ${jwt}; Authorization: Bearer opaque-pat-123 end`)).toBe(
      `token ${REDACTED}; Authorization: Bearer ${REDACTED} end`,
    );
    expect(withTokensRedacted('eyJ alone, a.b.c and bearer')).toBe('eyJ alone, a.b.c and bearer');
  });
});

describe('withServerWords', () => {
  const said = (serverMessage: string) => new VaultError('forbidden', 'x', { serverMessage });

  it('closes the quote with a full stop, unless the words end their own sentence', () => {
    expect(withServerWords('no right', said('User does not exist'))).toBe(
      'no right. The vault said: "User does not exist".',
    );
    // Issue #31: `."."` read twice.
    expect(withServerWords('no right.', said('Only an admin key may create public folders.'))).toBe(
      'no right. The vault said: "Only an admin key may create public folders."',
    );
    expect(withServerWords('no right.', said('Locked!'))).toBe('no right. The vault said: "Locked!"');
  });
});
