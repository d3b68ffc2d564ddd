import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { sealLegacyFields } from '../testing.ts';
import { SealedSchema, seal, unseal } from './sealed-file.ts';

/** A record as the apps spread the sealed part into theirs. */
const RecordSchema = v.object({ v: v.literal(1), ...SealedSchema });
const read = (record: unknown) => v.parse(RecordSchema, JSON.parse(JSON.stringify(record)));

/** A file sealed by `seal` at 99e026a (its four base64 fields), with throwaway key material. */
const FIRST_FORMAT = {
  material: 'material: correct horse',
  context: 'ctx',
  aad: Buffer.from('ctx aad'),
  text: '{"token":"tok-123"}',
  file: '{"v":1,"salt":"dATjajBo4Z2+HbKNMNA5Cw==","iv":"uEwYwOAsQ09/+hWy","tag":"qhrXwx6jGXkEfmZj5IcU/g==","data":"2f3HVKQrcvAJTT3fnETsD4Mcaw=="}',
};
const firstFormatFields = () =>
  JSON.parse(FIRST_FORMAT.file) as Record<'salt' | 'iv' | 'tag' | 'data', string> & { v: 1 };

describe('sealed files', () => {
  it('seal in the sealer’s format, one field, and open with the same material, context and data', () => {
    const aad = Buffer.from('["ctx",null]');
    const record = { v: 1, ...seal('tok-123', 'alice:pw:key', 'ctx', aad) };
    expect(Object.keys(record).sort()).toEqual(['sealed', 'v']);
    expect(record.sealed).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(record.sealed).not.toContain('tok-123');
    expect(unseal(read(record), 'alice:pw:key', 'ctx', aad)).toBe('tok-123');
    expect(() => unseal(read(record), 'alice:pw:other', 'ctx', aad)).toThrow();
    expect(() => unseal(read(record), 'alice:pw:key', 'other ctx', aad)).toThrow();
    expect(() => unseal(read(record), 'alice:pw:key', 'ctx', Buffer.from('other'))).toThrow();
    const bytes = Buffer.from(record.sealed, 'base64url');
    bytes[bytes.length - 1]! ^= 1;
    expect(() =>
      unseal(read({ ...record, sealed: bytes.toString('base64url') }), 'alice:pw:key', 'ctx', aad),
    ).toThrow();
  });

  it('open the files written before the sealer (salt, iv, tag, data)', () => {
    const { material, context, aad, text } = FIRST_FORMAT;
    expect(unseal(read(firstFormatFields()), material, context, aad)).toBe(text);
    expect(() => unseal(read(firstFormatFields()), 'other', context, aad)).toThrow();
    const fresh = { v: 1, ...sealLegacyFields('again', Buffer.from('key'), 'c', Buffer.from('c')) };
    expect(unseal(read(fresh), Buffer.from('key'), 'c', Buffer.from('c'))).toBe('again');
  });

  it('refuse a record with no sealed value, half of the old fields, or both formats', () => {
    const { material, context, aad } = FIRST_FORMAT;
    const fields = firstFormatFields();
    const sealed = seal('x', material, context, aad);
    for (const record of [{ v: 1 }, { v: 1, salt: fields.salt, iv: fields.iv }, { ...fields, ...sealed }]) {
      expect(() => unseal(read(record), material, context, aad)).toThrow(/not a sealed value/);
    }
    expect(() => read({ v: 1, sealed: 'not base64url!' })).toThrow();
    expect(() => read({ ...fields, iv: 'AAAA' })).toThrow();
  });
});
