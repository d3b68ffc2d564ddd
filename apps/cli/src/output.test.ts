import { describe, expect, it } from 'vitest';
import { printable } from './output.ts';

describe('printable', () => {
  it('shows controls, bidi overrides, format characters and invisible fillers as \\u{…}', () => {
    expect(printable('a\u001b[31m\u202eb\u00adc\u2060d\u{e0041}e\u3164f\u200bg')).toBe(
      'a\\u{1b}[31m\\u{202e}b\\u{ad}c\\u{2060}d\\u{e0041}e\\u{3164}f\\u{200b}g',
    );
  });

  it('leaves visible text alone', () => {
    expect(printable('Mot de passe ☃ 密码 🔑 naïve')).toBe('Mot de passe ☃ 密码 🔑 naïve');
  });
});
