/**
 * The linked credentials the bot keeps in its store, sealed with `@vaultline/sealer` (AES-256-GCM,
 * its versioned format in text form) under the link key, with what each value belongs to (its
 * purpose, the Slack user, the link) as additional data: a sealed value copied to another row or
 * field does not open. Values sealed before it (`v1.<key id>.<nonce>.<tag>.<ciphertext>`) still
 * open; the link store seals them again at start (their `key_id` is not the current key's).
 *
 * @module
 */

import { createKeyring, isLegacyLinkText, KEY_BYTES, openLegacyLinkText, SealError } from '@vaultline/sealer';

/** The length of an encryption key: AES-256. */
export const LINK_KEY_BYTES = KEY_BYTES;

/** Seals and opens the linked credentials and session tokens under the configured keys. */
export interface Sealer {
  /** The id of the current key (the sealer's key id): tells keys apart and says nothing of them. */
  readonly keyId: string;
  /**
   * Seals a text with the current key.
   *
   * @param plaintext The text.
   * @param context What it belongs to (bound as additional data, not stored in the value).
   * @returns The sealed value, in the sealer's text form.
   */
  seal(plaintext: string, context: string): string;
  /**
   * Opens a sealed value with the key it names (the current key or a previous one), in the
   * sealer's format or the bot's first one.
   *
   * @param sealed The sealed value.
   * @param context The context it was sealed with.
   * @returns The text, or undefined when no configured key opens it (unknown key, altered value,
   *   other context, no sealed value).
   */
  open(sealed: string, context: string): string | undefined;
  /**
   * Tells whether a sealed value should be sealed again: with a key other than the current one,
   * or in the bot's first format.
   *
   * @param sealed The sealed value.
   */
  isStale(sealed: string): boolean;
}

/**
 * Reads a key as the configuration gives it: base64 (standard or URL-safe, padding optional) of
 * exactly {@link LINK_KEY_BYTES} bytes.
 *
 * @param text The setting's value.
 * @returns The key, or undefined when the text is not one.
 */
export function parseLinkKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) return undefined;
  const bytes = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return bytes.length === LINK_KEY_BYTES ? bytes : undefined;
}

/**
 * Creates the sealer over the configured keys.
 *
 * @param current The key new values are sealed with.
 * @param previous Earlier keys, to open values sealed before a rotation.
 * @returns The sealer.
 */
export function createSealer(current: Uint8Array, previous: readonly Uint8Array[] = []): Sealer {
  if (current.length !== LINK_KEY_BYTES) throw new RangeError('An encryption key must be 32 bytes.');
  const keyring = createKeyring(current, previous);
  const keys = [current, ...previous];
  const aad = (context: string) => `vaultline-slack-bot/${context}`;
  return {
    keyId: keyring.keyId,
    seal: (plaintext, context) => keyring.sealText(plaintext, aad(context)),
    open(sealed, context) {
      try {
        const plain = isLegacyLinkText(sealed)
          ? openLegacyLinkText(keys, sealed, context)
          : keyring.openText(sealed, aad(context));
        return plain.toString('utf8');
      } catch (error) {
        if (error instanceof SealError) return undefined;
        throw error;
      }
    },
    isStale: (sealed) => keyring.needsReseal(sealed),
  };
}
