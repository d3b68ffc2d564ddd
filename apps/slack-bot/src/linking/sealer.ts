import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

/** The format of a sealed value: version, key id, then nonce, tag and ciphertext (base64url). */
const FORMAT = 'v1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** The length of an encryption key: AES-256. */
export const LINK_KEY_BYTES = 32;

/**
 * Seals and opens the linked credentials the bot keeps in its store: AES-256-GCM with a random
 * 96-bit nonce per value, and what the value belongs to (its purpose, the Slack user, the link)
 * bound as additional data, so that a sealed value copied to another row or field does not open.
 */
export interface Sealer {
  /** The id of the current key: a fingerprint that tells keys apart and says nothing of them. */
  readonly keyId: string;
  /**
   * Seals a text with the current key.
   *
   * @param plaintext The text.
   * @param context What it belongs to (bound as additional data, not stored in the value).
   * @returns `v1.<key id>.<nonce>.<tag>.<ciphertext>`.
   */
  seal(plaintext: string, context: string): string;
  /**
   * Opens a sealed value with the key it names (the current key or a previous one).
   *
   * @param sealed The sealed value.
   * @param context The context it was sealed with.
   * @returns The text, or undefined when no configured key opens it (unknown key, altered value,
   *   other context).
   */
  open(sealed: string, context: string): string | undefined;
  /**
   * Tells whether a sealed value is sealed with a key other than the current one.
   *
   * @param sealed The sealed value.
   * @returns Whether it should be sealed again with the current key.
   */
  isStale(sealed: string): boolean;
}

/**
 * The id of a key: the first 8 bytes of an HMAC of a fixed label under the key. It tells keys
 * apart; it gives nothing that helps find the key.
 *
 * @param key The key.
 * @returns 16 hex digits.
 */
export function keyIdOf(key: Uint8Array): string {
  return createHmac('sha256', key).update('vaultline-slack-bot link key id').digest('hex').slice(0, 16);
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
  const keys = new Map<string, Uint8Array>();
  for (const key of [...previous, current]) keys.set(keyIdOf(key), key);
  const keyId = keyIdOf(current);
  const aad = (context: string) => Buffer.from(`vaultline-slack-bot/${FORMAT}/${context}`, 'utf8');
  return {
    keyId,
    seal(plaintext, context) {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', current, nonce, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad(context));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [FORMAT, keyId, nonce, tag, ciphertext]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
        .join('.');
    },
    open(sealed, context) {
      const [format, id = '', nonce = '', tag = '', ciphertext = '', ...rest] = sealed.split('.');
      const key = keys.get(id);
      if (format !== FORMAT || rest.length > 0 || !key) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'), {
          authTagLength: TAG_BYTES,
        });
        decipher.setAAD(aad(context));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([
          decipher.update(Buffer.from(ciphertext, 'base64url')),
          decipher.final(),
        ]).toString('utf8');
      } catch {
        return undefined;
      }
    },
    isStale(sealed) {
      return sealed.split('.')[1] !== keyId;
    },
  };
}
