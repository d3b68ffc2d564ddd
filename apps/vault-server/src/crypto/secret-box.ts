import {
  createCipheriv,
  createDecipheriv,
  createSecretKey,
  type DecipherGCM,
  randomBytes,
} from 'node:crypto';
import { VaultError } from '@vaultline/protocol';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Bytes of a sealed value before its ciphertext: version, iv and tag. */
export const SEALED_HEADER_BYTES = 1 + IV_BYTES + TAG_BYTES;

/** A sealed value opened in parts: its ciphertext in order, then {@link OpenInParts.final}. */
export interface OpenInParts {
  /** Decrypts the next part. Its bytes are not authenticated before {@link OpenInParts.final}. */
  update(part: Uint8Array): Buffer;
  /** Authenticates everything given; throws on a wrong key or altered data. */
  final(): void;
}

/** Seals and opens secrets at rest with AES-256-GCM under the master key. */
export interface SecretBox {
  /**
   * Encrypts: `version | iv | tag | ciphertext`. With `aad` (additional data, e.g. the row a value
   * belongs to), the value opens only with the same `aad`: moved to another row, it fails.
   */
  seal(plain: Uint8Array, aad?: Uint8Array): Buffer;
  /** Decrypts and authenticates (with the `aad` it was sealed with); throws on a wrong key or altered data. */
  open(sealed: Uint8Array, aad?: Uint8Array): Buffer;
  sealText(plain: string): Buffer;
  openText(sealed: Uint8Array): string;
  /**
   * Opens a sealed value too large to hold whole (an attachment stored before migration 6),
   * from its first {@link SEALED_HEADER_BYTES} bytes; its ciphertext follows in parts.
   */
  openInParts(header: Uint8Array): OpenInParts;
}

/**
 * Creates a secret box over a 32-byte master key.
 *
 * @param rawKey The master key.
 * @returns The box.
 */
export function createSecretBox(rawKey: Uint8Array): SecretBox {
  if (rawKey.length !== 32)
    throw new Error(`Expected a 32-byte master key, received ${rawKey.length} bytes.`);
  // One KeyObject for the life of the box: creating it per call costs more than the cipher itself.
  const key = createSecretKey(rawKey);
  const seal = (plain: Uint8Array, aad?: Uint8Array): Buffer => {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    if (aad !== undefined) cipher.setAAD(aad);
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([Buffer.of(VERSION), iv, cipher.getAuthTag(), body]);
  };
  const open = (sealed: Uint8Array, aad?: Uint8Array): Buffer => {
    const data = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
    if (data.length < 1 + IV_BYTES + TAG_BYTES || data[0] !== VERSION) {
      throw new VaultError('server', 'A stored secret has an unknown format.');
    }
    const iv = data.subarray(1, 1 + IV_BYTES);
    const tag = data.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAuthTag(tag);
    if (aad !== undefined) decipher.setAAD(aad);
    try {
      const plain = decipher.update(data.subarray(1 + IV_BYTES + TAG_BYTES));
      // GCM gives everything from update(); final() checks the tag and gives nothing more.
      const rest = decipher.final();
      return rest.length === 0 ? plain : Buffer.concat([plain, rest]);
    } catch {
      throw new VaultError('server', 'A stored secret could not be decrypted with the master key.');
    }
  };
  const openInParts = (header: Uint8Array): OpenInParts => {
    if (header.length !== SEALED_HEADER_BYTES || header[0] !== VERSION) {
      throw new VaultError('server', 'A stored secret has an unknown format.');
    }
    const decipher: DecipherGCM = createDecipheriv('aes-256-gcm', key, header.subarray(1, 1 + IV_BYTES));
    decipher.setAuthTag(header.subarray(1 + IV_BYTES));
    return {
      update: (part) => decipher.update(part),
      final() {
        try {
          decipher.final();
        } catch {
          throw new VaultError('server', 'A stored secret could not be decrypted with the master key.');
        }
      },
    };
  };
  return {
    seal: (plain, aad) => seal(plain, aad),
    open: (sealed, aad) => open(sealed, aad),
    openInParts,
    sealText: (plain) => seal(Buffer.from(plain, 'utf8')),
    openText: (sealed) => open(sealed).toString('utf8'),
  };
}
