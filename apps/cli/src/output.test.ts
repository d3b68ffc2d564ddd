import { describe, expect, it } from 'vitest';
import { COLUMN_WIDTH_CAP, columns, printable } from './output.ts';

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

describe('columns', () => {
  it('pads each column to its longest cell', () => {
    expect(
      columns([
        ['ID', 'LABEL', 'REF'],
        ['7', 'db', 'vaultline://7/password'],
      ]),
    ).toBe('ID  LABEL  REF\n7   db     vaultline://7/password');
  });

  it('pads no column past the cap: one long login widens its own row only', () => {
    const login = 'x'.repeat(1400);
    const lines = columns([
      ['ID', 'LOGIN', 'REFERENCE'],
      ['1', login, 'vaultline://1/password'],
      ['2', 'app', 'vaultline://2/password'],
    ]).split('\n');
    expect(lines[1]).toBe(`1   ${login}  vaultline://1/password`);
    expect(lines[2]).toBe(`2   ${'app'.padEnd(COLUMN_WIDTH_CAP)}  vaultline://2/password`);
    expect(lines[0]!.length).toBeLessThanOrEqual(4 + COLUMN_WIDTH_CAP + 2 + 'REFERENCE'.length);
  });
});
