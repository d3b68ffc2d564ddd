import { parse } from 'dotenv';
import { describe, expect, it } from 'vitest';
import { dotenvVariables, parseDotenv } from './dotenv.ts';

/** The texts Vaultline must read as the `dotenv` package does. */
const TEXTS = [
  'A=1\nB = two \nexport C=three\n',
  'PASS=Hunter7!Quokka#Blue\n',
  'PASS=Hunter7!Quokka #comment\n',
  'PASS="Hunter7!Quokka#Blue" # quoted\n',
  "SINGLE='a#b'\nBACK=`c#d`\n",
  'MULTI="line1\\nline2"\nRAW=\'line1\\nline2\'\n',
  'EMPTY=\nSPACES=   \n# only a comment\nCRLF=yes\r\nLAST=1',
  'DUP=first\nDUP=second\n',
  'KEY: value\n',
];

describe('parseDotenv', () => {
  it.each(TEXTS)('reads %j as the dotenv package does', (text) => {
    expect(Object.fromEntries(dotenvVariables(text))).toEqual(parse(text));
  });

  it('cuts an unquoted value at "#" and says where the value is written', () => {
    const text = 'PASS=Hunter7!Quokka#Blue\n';
    const [entry] = parseDotenv(text);
    expect(entry).toMatchObject({ name: 'PASS', value: 'Hunter7!Quokka', quote: undefined });
    expect(text.slice(entry!.start, entry!.end)).toBe('Hunter7!Quokka');
    expect(text.charAt(entry!.end)).toBe('#');
  });

  it('takes a quoted value whole, "#" included, its range inside the quotes', () => {
    const text = 'PASS="Hunter7!Quokka#Blue"\n';
    const [entry] = parseDotenv(text);
    expect(entry).toMatchObject({ value: 'Hunter7!Quokka#Blue', quote: '"' });
    expect(text.slice(entry!.start, entry!.end)).toBe('Hunter7!Quokka#Blue');
  });
});
