import { describe, expect, it } from 'vitest';
import { LINK_BLOCKS, parseLinkForm } from './form.ts';

const form = (values: Partial<Record<keyof typeof LINK_BLOCKS, string>>) => (block: string) => {
  const key = Object.entries(LINK_BLOCKS).find(([, id]) => id === block)?.[0] as keyof typeof LINK_BLOCKS;
  return values[key] ?? '';
};

describe('parseLinkForm', () => {
  it('reads a login with a password and API key, or with a token, as the configuration asks', () => {
    expect(
      parseLinkForm('password', form({ login: ' alice ', password: ' pw with spaces ', apiKey: ' k1 ' })),
    ).toEqual({
      ok: true,
      credentials: { kind: 'password', login: 'alice', password: ' pw with spaces ', apiKey: 'k1' },
    });
    expect(parseLinkForm('both', form({ login: 'alice', token: 'f'.repeat(64) }))).toEqual({
      ok: true,
      credentials: { kind: 'personal-access-token', login: 'alice', personalAccessToken: 'f'.repeat(64) },
    });
    // A token where only passwords are asked for is not read.
    expect(parseLinkForm('password', form({ login: 'alice', token: 't' }))).toMatchObject({ ok: false });
  });

  it('names what is missing or wrong, per field, never with a value', () => {
    const secret = 'Hunter7!Quokka';
    const cases = [
      parseLinkForm('password', form({ login: 'alice', password: secret })),
      parseLinkForm('both', form({ login: 'alice', password: secret, apiKey: 'k', token: 't' })),
      parseLinkForm('token', form({ login: 'alice' })),
      parseLinkForm('both', form({ login: `ali\u0000ce`, apiKey: `${secret} x` })),
    ];
    expect(cases.map((result) => (result.ok ? {} : result.errors))).toEqual([
      { link_api_key: 'Your personal API key, please.' },
      { link_token: 'Give either your password and API key, or a token: not both.' },
      { link_token: 'Your personal access token, please.' },
      {
        link_login: expect.stringContaining('without control characters'),
        link_password: 'Your TeamPass password, please.',
        link_api_key: expect.stringContaining('without spaces'),
      },
    ]);
    expect(JSON.stringify(cases)).not.toContain('Hunter7');
  });
});
