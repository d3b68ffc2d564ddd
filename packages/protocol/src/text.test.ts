import { describe, expect, it } from 'vitest';
import { foldLabel, neutralizeText, replaceUnsafeCharacters } from './text.ts';

describe('foldLabel', () => {
  it.each([
    ['  Café  ', 'cafe'],
    ['POSTGRES prod', 'postgres prod'],
    ['ﬁle', 'file'],
    ['Ünïcödé', 'unicode'],
    ['🔑 key', '🔑 key'],
    ['', ''],
  ])('%j → %j', (label, folded) => {
    expect(foldLabel(label)).toBe(folded);
  });
});

describe('neutralizeText', () => {
  it.each([
    ['\u202ebbx_alice', '\ufffdbbx_alice'],
    ['a\u2066b\u2069c', 'a\ufffdb\ufffdc'],
    ['git\u200bhub\ufeff', 'git\ufffdhub\ufffd'],
    ['\u200e\u200f\u061c', '\ufffd\ufffd\ufffd'],
    ['line\nbreak\r\u2028x\u2029y', 'line break  x y'],
    ['\u0000\u001b[31mred\u007f\u009b', '  [31mred  '],
    ['Mot de passe ☃ 密码 🔑 ｇｉｔ', 'Mot de passe ☃ 密码 🔑 ｇｉｔ'],
    ['', ''],
  ])('%j → %j', (text, neutral) => {
    expect(neutralizeText(text)).toBe(neutral);
  });

  it('keeps the length in code points: one character stands for one', () => {
    const hostile = '\u202e\u0007x\u2066\u{e0041}';
    expect([...neutralizeText(hostile)]).toHaveLength([...hostile].length);
  });

  // Every format character (Cf) of the Unicode version Node knows, and the fillers that show as
  // nothing: none may pass (issue: 156 of 174 did, the tag characters and U+00AD among them).
  const FORMAT_AND_FILLERS = [
    ...Array.from({ length: 0x110000 }, (_, code) => code)
      .filter((code) => code < 0xd800 || code > 0xdfff)
      .map((code) => String.fromCodePoint(code))
      .filter((char) => /\p{Cf}/u.test(char)),
    '\u115f',
    '\u1160',
    '\u3164',
    '\uffa0',
    '\u034f',
    '\u17b4',
    '\u17b5',
    '\u2800',
  ];

  it('turns every format character and invisible filler into U+FFFD', () => {
    expect(FORMAT_AND_FILLERS.length).toBeGreaterThanOrEqual(174);
    for (const char of ['\u00ad', '\u2060', '\u2064', '\u{e0001}', '\u{e007f}', '\u180e', '\ufff9']) {
      expect(FORMAT_AND_FILLERS).toContain(char);
    }
    const passed = FORMAT_AND_FILLERS.filter((char) => neutralizeText(`a${char}b`) !== 'a\ufffdb');
    expect(passed.map((char) => char.codePointAt(0)!.toString(16))).toEqual([]);
  });

  it('turns every control and line or paragraph separator into a space', () => {
    const breaking = Array.from({ length: 0x3000 }, (_, code) => String.fromCharCode(code)).filter((char) =>
      /[\p{Cc}\p{Zl}\p{Zp}]/u.test(char),
    );
    expect(breaking).toHaveLength(67);
    expect(breaking.filter((char) => neutralizeText(char) !== ' ')).toEqual([]);
  });
});

describe('replaceUnsafeCharacters', () => {
  it('hands each character of the rule to the caller, astral ones whole', () => {
    const shown = replaceUnsafeCharacters(
      'a\u00ad\u{e0041}\u001b\u3164b ok',
      (char) => `<${char.codePointAt(0)!.toString(16)}>`,
    );
    expect(shown).toBe('a<ad><e0041><1b><3164>b ok');
  });

  it('leaves visible text alone', () => {
    const visible = 'Mot de passe ☃ 密码 🔑 ｇｉｔ — naïve café';
    expect(replaceUnsafeCharacters(visible, () => '?')).toBe(visible);
  });
});
