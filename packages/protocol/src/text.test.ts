import { describe, expect, it } from 'vitest';
import { foldLabel, neutralizeText } from './text.ts';

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

  it('keeps the length in UTF-16 units: one character stands for one', () => {
    const hostile = '\u202e\u0007x\u2066';
    expect(neutralizeText(hostile)).toHaveLength(hostile.length);
  });
});
