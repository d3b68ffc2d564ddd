import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  isLegacyBox,
  isLegacyLinkText,
  LEGACY_BOX_HEADER_BYTES,
  legacyLinkKeyId,
  openLegacyBox,
  openLegacyBoxInParts,
  openLegacyFields,
  openLegacyLinkText,
} from './index.ts';
import { sealErrorOf, sealLegacyBox, sealLegacyFields, sealLegacyLinkText } from './testing.ts';

/**
 * Values sealed by the code before the sealer (the server's secret box, the bot's link sealer and
 * the protocol's sealed files, as they were at 99e026a), under a throwaway key: 32 bytes of 7.
 */
const FIXTURE_KEY = Buffer.alloc(32, 7);
const FIXTURES = {
  /** `createSecretBox(key).sealText('Hunter7!Quokka ☕')`. */
  box: 'ARR0IYMyaQmiP9qKS79WTtTVV9A8qkI3gq/IH5Li5/2+vFC3rr3Eq1Z6XHl9r1I=',
  /** `createSecretBox(key).seal(Buffer.from('row secret'), Buffer.from('upstream_accounts/42'))`. */
  boxWithAad: 'AQCqJezaF4Gy3vSPMa3qCPMfr69Kmvil0JA11dsVtiS7GUeHRvfK',
  /** `createSealer(key).seal('Hunter7!Quokka ☕', 'credentials/UALICE/v1/alice')`. */
  link: 'v1.d8499f719d1f707c.UYlWc9wAXsCsGIeR.O-012IJap07E6U50nxyeGA.sBxWdrezTAaL88Tx5MWvQ0Or',
  /** `seal('{"token":"tok-123"}', 'material: correct horse', 'ctx', Buffer.from('ctx aad'))`. */
  fields: {
    salt: 'dATjajBo4Z2+HbKNMNA5Cw==',
    iv: 'uEwYwOAsQ09/+hWy',
    tag: 'qhrXwx6jGXkEfmZj5IcU/g==',
    data: '2f3HVKQrcvAJTT3fnETsD4Mcaw==',
  },
};

const decode = (fields: Record<'salt' | 'iv' | 'tag' | 'data', string>) => ({
  salt: Buffer.from(fields.salt, 'base64'),
  iv: Buffer.from(fields.iv, 'base64'),
  tag: Buffer.from(fields.tag, 'base64'),
  data: Buffer.from(fields.data, 'base64'),
});

describe('the formats before the sealer', () => {
  it('opens the server box v1 values the old server sealed, with and without additional data', () => {
    const sealed = Buffer.from(FIXTURES.box, 'base64');
    expect(isLegacyBox(sealed)).toBe(true);
    expect(openLegacyBox(FIXTURE_KEY, sealed).toString()).toBe('Hunter7!Quokka ☕');
    const withAad = Buffer.from(FIXTURES.boxWithAad, 'base64');
    expect(openLegacyBox(FIXTURE_KEY, withAad, 'upstream_accounts/42').toString()).toBe('row secret');
    expect(sealErrorOf(() => openLegacyBox(FIXTURE_KEY, withAad, 'upstream_accounts/43'))).toBe(
      'authentication',
    );
    expect(sealErrorOf(() => openLegacyBox(randomBytes(32), sealed))).toBe('authentication');
    expect(sealErrorOf(() => openLegacyBox(FIXTURE_KEY, sealed.subarray(0, 20)))).toBe('format');
    expect(sealErrorOf(() => openLegacyBox(FIXTURE_KEY, Buffer.of(2, ...sealed.subarray(1))))).toBe('format');
  });

  it('opens a server box v1 attachment in parts, and refuses one altered', () => {
    const key = randomBytes(32);
    const bytes = randomBytes(5000);
    const sealed = sealLegacyBox(key, bytes);
    const parts = openLegacyBoxInParts(key, sealed.subarray(0, LEGACY_BOX_HEADER_BYTES));
    const out = [LEGACY_BOX_HEADER_BYTES, 1000, 4000].map((from, i, all) =>
      parts.update(sealed.subarray(from, all[i + 1] ?? sealed.length)),
    );
    parts.final();
    expect(Buffer.concat(out).equals(bytes)).toBe(true);
    const altered = Buffer.from(sealed);
    altered[altered.length - 1]! ^= 1;
    const bad = openLegacyBoxInParts(key, altered.subarray(0, LEGACY_BOX_HEADER_BYTES));
    bad.update(altered.subarray(LEGACY_BOX_HEADER_BYTES));
    expect(sealErrorOf(() => bad.final())).toBe('authentication');
    expect(sealErrorOf(() => openLegacyBoxInParts(key, sealed.subarray(0, 10)))).toBe('format');
  });

  it('opens the link text v1 values the old bot sealed, with the key they name', () => {
    expect(isLegacyLinkText(FIXTURES.link)).toBe(true);
    expect(legacyLinkKeyId(FIXTURE_KEY)).toBe('d8499f719d1f707c');
    const keys = [randomBytes(32), FIXTURE_KEY];
    expect(openLegacyLinkText(keys, FIXTURES.link, 'credentials/UALICE/v1/alice').toString()).toBe(
      'Hunter7!Quokka ☕',
    );
    expect(sealErrorOf(() => openLegacyLinkText(keys, FIXTURES.link, 'credentials/UBOB/v1/bob'))).toBe(
      'authentication',
    );
    expect(sealErrorOf(() => openLegacyLinkText([randomBytes(32)], FIXTURES.link, 'x'))).toBe('unknown-key');
    for (const other of ['', 'v1', 'v2.x.y.z.w', `${FIXTURES.link}.extra`])
      expect(sealErrorOf(() => openLegacyLinkText(keys, other, 'x'))).not.toBe('opened');
    const fresh = sealLegacyLinkText(FIXTURE_KEY, 'again', 'c');
    expect(openLegacyLinkText(keys, fresh, 'c').toString()).toBe('again');
  });

  it('opens the sealed file fields of the old format', () => {
    const fields = decode(FIXTURES.fields);
    expect(openLegacyFields(fields, 'material: correct horse', 'ctx', 'ctx aad').toString()).toBe(
      '{"token":"tok-123"}',
    );
    expect(sealErrorOf(() => openLegacyFields(fields, 'other material', 'ctx', 'ctx aad'))).toBe(
      'authentication',
    );
    expect(sealErrorOf(() => openLegacyFields(fields, 'material: correct horse', 'ctx', 'other'))).toBe(
      'authentication',
    );
    expect(
      sealErrorOf(() => openLegacyFields({ ...fields, iv: Buffer.alloc(3) }, 'm', 'ctx', 'ctx aad')),
    ).toBe('format');
    const fresh = decode(sealLegacyFields('x', Buffer.from('m'), 'c', Buffer.from('a')));
    expect(openLegacyFields(fresh, Buffer.from('m'), 'c', 'a').toString()).toBe('x');
  });
});
