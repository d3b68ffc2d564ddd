import { randomBytes } from 'node:crypto';
import { fromText, keyIdOf, toText } from '@vaultline/sealer';
import { sealLegacyLinkText } from '@vaultline/sealer/testing';
import { describe, expect, it } from 'vitest';
import { createSealer, parseLinkKey } from './sealer.ts';

const key = () => randomBytes(32);

/** Sealed by the bot's sealer at 99e026a under 32 bytes of 7 (a throwaway key). */
const FIRST_FORMAT = {
  key: Buffer.alloc(32, 7),
  /** `createSealer(key).seal('Hunter7!Quokka ☕', 'credentials/UALICE/v1/alice')`. */
  sealed: 'v1.d8499f719d1f707c.UYlWc9wAXsCsGIeR.O-012IJap07E6U50nxyeGA.sBxWdrezTAaL88Tx5MWvQ0Or',
};

describe('createSealer', () => {
  it('opens what it sealed, in the same context, and never stores the text in clear', () => {
    const sealer = createSealer(key());
    const sealed = sealer.seal('Hunter7!Quokka ☕', 'credentials/UALICE/v1');
    expect(sealed).not.toContain('Hunter7');
    expect(sealed).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(sealer.open(sealed, 'credentials/UALICE/v1')).toBe('Hunter7!Quokka ☕');
    // A fresh nonce each time: the same text seals differently.
    expect(sealer.seal('Hunter7!Quokka ☕', 'credentials/UALICE/v1')).not.toBe(sealed);
  });

  it('does not open a value moved to another user or field, altered, or sealed with an unknown key', () => {
    const sealer = createSealer(key());
    const sealed = sealer.seal('Hunter7!Quokka', 'credentials/UALICE/v1');
    expect(sealer.open(sealed, 'credentials/UBOB/v1')).toBeUndefined();
    expect(sealer.open(sealed, 'session/UALICE/v1')).toBeUndefined();
    const flipped = fromText(sealed);
    flipped[flipped.length - 1]! ^= 1;
    expect(sealer.open(toText(flipped), 'credentials/UALICE/v1')).toBeUndefined();
    expect(createSealer(key()).open(sealed, 'credentials/UALICE/v1')).toBeUndefined();
    for (const other of ['', 'v1', 'v2.x.y.z.w', `${sealed}.extra`, 'not sealed at all'])
      expect(sealer.open(other, 'credentials/UALICE/v1')).toBeUndefined();
  });

  it('opens values of a previous key after a rotation, and says they are stale', () => {
    const old = key();
    const sealed = createSealer(old).seal('Hunter7!Quokka', 'c');
    const rotated = createSealer(key(), [old]);
    expect(rotated.open(sealed, 'c')).toBe('Hunter7!Quokka');
    expect(rotated.isStale(sealed)).toBe(true);
    expect(rotated.isStale(rotated.seal('x', 'c'))).toBe(false);
  });

  it('opens what the bot sealed in its first format, with the current or a previous key, and says it is stale', () => {
    const current = createSealer(FIRST_FORMAT.key);
    expect(current.open(FIRST_FORMAT.sealed, 'credentials/UALICE/v1/alice')).toBe('Hunter7!Quokka ☕');
    expect(current.open(FIRST_FORMAT.sealed, 'credentials/UBOB/v1/bob')).toBeUndefined();
    expect(current.isStale(FIRST_FORMAT.sealed)).toBe(true);
    const rotated = createSealer(key(), [FIRST_FORMAT.key]);
    expect(rotated.open(FIRST_FORMAT.sealed, 'credentials/UALICE/v1/alice')).toBe('Hunter7!Quokka ☕');
    expect(createSealer(key()).open(FIRST_FORMAT.sealed, 'credentials/UALICE/v1/alice')).toBeUndefined();
    const old = key();
    expect(createSealer(old).open(sealLegacyLinkText(old, 'token', 'session/U1/v'), 'session/U1/v')).toBe(
      'token',
    );
  });

  it('names its key by the sealer’s key id', () => {
    const bytes = key();
    expect(createSealer(bytes).keyId).toBe(keyIdOf(bytes));
  });
});

describe('parseLinkKey', () => {
  it('reads 32 bytes of standard or URL-safe base64, and nothing else', () => {
    const bytes = key();
    expect(parseLinkKey(bytes.toString('base64'))?.equals(bytes)).toBe(true);
    expect(parseLinkKey(` ${bytes.toString('base64url')} `)?.equals(bytes)).toBe(true);
    expect(parseLinkKey(randomBytes(16).toString('base64'))).toBeUndefined();
    expect(parseLinkKey(randomBytes(64).toString('base64'))).toBeUndefined();
    expect(parseLinkKey('correct horse battery staple, 32 characters long!!')).toBeUndefined();
    expect(parseLinkKey('')).toBeUndefined();
  });
});
