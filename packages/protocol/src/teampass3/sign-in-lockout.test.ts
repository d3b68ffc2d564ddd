import { describe, expect, it } from 'vitest';
import { signInLoginKey } from './sign-in-lockout.ts';

describe('signInLoginKey', () => {
  it.each([
    ['victim<i1>', 'victim'],
    ['<b>victim</b>', 'victim'],
    ['victim<!-- x -->', 'victim'],
    ['  victim \t', 'victim'],
    ['victim <i>', 'victim'],
    ['VICTİM', 'victim'],
    ['Víctïm', 'victim'],
    ['ｖｉｃｔｉｍ', 'victim'],
    ['vic\u200btim', 'victim'],
    ['vic\u00adtim', 'victim'],
    ['Straße', 'strasse'],
    ['victim<a title=">">', 'victim'],
    ['victim<', 'victim'],
  ])('counts %j as TeamPass does: %j', (typed, key) => {
    expect(signInLoginKey(typed)).toBe(key);
  });

  it('keeps logins apart that TeamPass keeps apart', () => {
    expect(signInLoginKey('<i></i> victim')).not.toBe(signInLoginKey('victim'));
    expect(signInLoginKey('a < b')).toBe('a &lt; b');
    expect(signInLoginKey('tom&jerry')).not.toBe(signInLoginKey('tomjerry'));
    expect(signInLoginKey('<i>')).toBe('');
  });
});
