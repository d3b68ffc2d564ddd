import { describe, expect, it } from 'vitest';
import { VaultError } from './errors.ts';
import { fixedServerWordsOf, isFixedServerWording } from './server-wordings.ts';

const error = (serverMessage: string | undefined) =>
  new VaultError('invalid_request', 'x failed.', { status: 400, serverMessage });

describe('fixedServerWordsOf', () => {
  it.each([
    'User does not exist',
    'API access not allowed.',
    'No item with id 12.',
    'Expected at most 100 ids in one call, received 2345.',
    'Rate limit exceeded — retry in 28 seconds',
    'Login failed. (Account temporarily locked)',
    'Login failed. (Missing credentials)',
    'An internal error occurred. Please contact support.',
    '  Label   already exists ',
  ])('keeps the fixed wording %j', (words) => {
    expect(isFixedServerWording(words)).toBe(true);
    expect(fixedServerWordsOf(error(words))).toBe(words.replace(/\s+/g, ' ').trim());
  });

  it.each([
    "Refused {'pw': 'Hunter7!Quokka'}",
    'pw:Hunter7!Quokka',
    'decrypt failed for Hunter7!Quokka',
    'Hunter7!Quokka',
    'User does not exist: Hunter7!Quokka',
    'No item with id Hunter7.',
    'Label or Password or Folder ID is missing Hunter7!Quokka',
    '',
  ])('gives nothing for %j, which could carry a value', (words) => {
    expect(isFixedServerWording(words)).toBe(false);
    expect(fixedServerWordsOf(error(words))).toBeUndefined();
  });

  it('gives nothing for an error the server said nothing about, or for another error', () => {
    expect(fixedServerWordsOf(error(undefined))).toBeUndefined();
    expect(fixedServerWordsOf(new Error('User does not exist'))).toBeUndefined();
  });
});
