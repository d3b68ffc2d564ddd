import { describe, expect, it } from 'vitest';
import {
  CREDENTIAL_KIND_LIST,
  CREDENTIAL_KINDS,
  credentialsFrom,
  credentialsOf,
  secretsOf,
} from './credentials.ts';

describe('credentials', () => {
  it('names the secrets of credentials, never the login', () => {
    expect(secretsOf({ kind: 'password', login: 'alice', password: 'pw', apiKey: 'key' })).toEqual([
      'pw',
      'key',
    ]);
    expect(secretsOf({ kind: 'personal-access-token', login: 'bob', personalAccessToken: 'tok' })).toEqual([
      'tok',
    ]);
    expect(secretsOf({ login: 'carol', apiKey: '', password: undefined })).toEqual([]);
  });

  it('reads a string auth as an API key', () => {
    expect(credentialsOf('key')).toEqual({ kind: 'api-key', apiKey: 'key' });
    expect(secretsOf(credentialsOf('key'))).toEqual(['key']);
  });

  it('keeps credentials that say their kind as they are', () => {
    const given = [
      { kind: 'api-key', apiKey: 'key', login: 'alice' },
      { kind: 'password', login: 'alice', password: 'pw', apiKey: 'key' },
      { kind: 'personal-access-token', login: 'alice', personalAccessToken: 'tok' },
    ] as const;
    for (const credentials of given) expect(credentialsOf(credentials)).toEqual(credentials);
    expect(CREDENTIAL_KIND_LIST).toEqual(given.map((credentials) => credentials.kind));
    expect(CREDENTIAL_KINDS['personal-access-token']).toBe('personal access token');
  });

  it('reads the kindless credentials of earlier versions by one rule', () => {
    expect(credentialsOf({ apiKey: 'key' })).toEqual({ kind: 'api-key', apiKey: 'key' });
    expect(credentialsOf({ apiKey: 'key', login: 'alice' })).toEqual({
      kind: 'api-key',
      apiKey: 'key',
      login: 'alice',
    });
    expect(credentialsOf({ login: 'alice', password: 'pw', apiKey: 'key' })).toEqual({
      kind: 'password',
      login: 'alice',
      password: 'pw',
      apiKey: 'key',
    });
    expect(credentialsOf({ login: 'alice', personalAccessToken: 'tok', apiKey: 'key' })).toEqual({
      kind: 'personal-access-token',
      login: 'alice',
      personalAccessToken: 'tok',
    });
    // A password without a login never signed in: the key alone is what worked (legacy API).
    expect(credentialsOf({ apiKey: 'key', password: 'pw' })).toEqual({ kind: 'api-key', apiKey: 'key' });
    expect(() => credentialsOf({ personalAccessToken: 'tok' })).toThrow(/missing login/);
    expect(() => credentialsOf({})).toThrow(/missing apiKey/);
  });

  it('makes credentials of a kind from gathered fields, leaving the others out', () => {
    const fields = { login: 'alice', password: 'pw', apiKey: 'key', personalAccessToken: 'tok' };
    expect(credentialsFrom(fields, 'password')).toEqual({
      kind: 'password',
      login: 'alice',
      password: 'pw',
      apiKey: 'key',
    });
    expect(credentialsFrom(fields, 'api-key')).toEqual({ kind: 'api-key', apiKey: 'key', login: 'alice' });
    expect(() => credentialsFrom({ login: 'alice', password: 'pw' }, 'password')).toThrow(/missing apiKey/);
    expect(credentialsFrom(fields)).toEqual({
      kind: 'personal-access-token',
      login: 'alice',
      personalAccessToken: 'tok',
    });
  });
});
