import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSealer, keyIdOf, parseLinkKey } from './sealer.ts';

const key = () => randomBytes(32);

describe('createSealer', () => {
  it('opens what it sealed, in the same context, and never stores the text in clear', () => {
    const sealer = createSealer(key());
    const sealed = sealer.seal('Hunter7!Quokka ☕', 'credentials/UALICE/v1');
    expect(sealed).not.toContain('Hunter7');
    expect(sealed.startsWith(`v1.${sealer.keyId}.`)).toBe(true);
    expect(sealer.open(sealed, 'credentials/UALICE/v1')).toBe('Hunter7!Quokka ☕');
    // A fresh nonce each time: the same text seals differently.
    expect(sealer.seal('Hunter7!Quokka ☕', 'credentials/UALICE/v1')).not.toBe(sealed);
  });

  it('does not open a value moved to another user or field, altered, or sealed with an unknown key', () => {
    const sealer = createSealer(key());
    const sealed = sealer.seal('Hunter7!Quokka', 'credentials/UALICE/v1');
    expect(sealer.open(sealed, 'credentials/UBOB/v1')).toBeUndefined();
    expect(sealer.open(sealed, 'session/UALICE/v1')).toBeUndefined();
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[4] ?? '', 'base64url');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    parts[4] = flipped.toString('base64url');
    expect(sealer.open(parts.join('.'), 'credentials/UALICE/v1')).toBeUndefined();
    expect(createSealer(key()).open(sealed, 'credentials/UALICE/v1')).toBeUndefined();
    for (const other of ['', 'v1', 'v2.x.y.z.w', `${sealed}.extra`])
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

  it('gives every key its own id, which does not contain the key', () => {
    const bytes = key();
    expect(keyIdOf(bytes)).toMatch(/^[0-9a-f]{16}$/);
    expect(keyIdOf(bytes)).not.toBe(keyIdOf(key()));
    expect(bytes.toString('hex')).not.toContain(keyIdOf(bytes));
  });
});
