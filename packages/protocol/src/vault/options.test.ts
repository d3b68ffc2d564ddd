import { describe, expect, it } from 'vitest';
import { credentialsOf, secretsOf } from './options.ts';

describe('credentials', () => {
  it('names the secrets of credentials, never the login', () => {
    expect(secretsOf({ login: 'alice', password: 'pw', apiKey: 'key' })).toEqual(['pw', 'key']);
    expect(secretsOf({ login: 'bob', personalAccessToken: 'tok' })).toEqual(['tok']);
    expect(secretsOf({ login: 'carol', apiKey: '', password: undefined })).toEqual([]);
  });

  it('reads a string auth as an API key', () => {
    expect(credentialsOf('key')).toEqual({ apiKey: 'key' });
    expect(secretsOf(credentialsOf('key'))).toEqual(['key']);
  });
});
