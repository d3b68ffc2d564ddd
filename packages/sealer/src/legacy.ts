/**
 * Readers of the formats the sealer replaced, so that nothing sealed before it becomes unreadable.
 * They only open: nothing writes these formats any more (the apps seal again in the current
 * format where they rewrite anyway). Each app keeps a small dispatch of its own: a value in an old
 * format goes here, any other to its {@link Sealer}.
 *
 * - **Server box v1** (the vault server's secret box): bytes `1 | nonce (12) | tag (16) |
 *   ciphertext` under the master key, with the row's additional data where it gave one.
 * - **Link text v1** (the Slack bot's linked accounts): text `v1.<key id>.<nonce>.<tag>.<ciphertext>`
 *   (base64url parts; key id: 16 hex digits of HMAC-SHA256 of `vaultline-slack-bot link key id`),
 *   additional data `vaultline-slack-bot/v1/<context>`.
 * - **File fields** (the sealed files of `@vaultline/protocol/node`, now `./node` here): base64 fields `salt` (16),
 *   `iv` (12), `tag` (16) and `data`, the key derived with HKDF-SHA256 from the key material, the
 *   salt and the context.
 *
 * @module
 */

import { createDecipheriv, createHmac, hkdfSync, type KeyObject } from 'node:crypto';
import { type Aad, NO_AAD, NONCE_BYTES, SealError, TAG_BYTES } from './sealer.ts';

const LEGACY_BOX_VERSION = 1;
/** Bytes of a server box v1 value before its ciphertext: version, nonce and tag. */
export const LEGACY_BOX_HEADER_BYTES = 1 + NONCE_BYTES + TAG_BYTES;

function openGcm(
  key: Uint8Array | KeyObject,
  nonce: Uint8Array,
  tag: Uint8Array,
  aad: Aad,
  body: Uint8Array,
): Buffer {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
    decipher.setAAD(typeof aad === 'string' ? Buffer.from(aad, 'utf8') : aad);
    decipher.setAuthTag(tag);
    const plain = decipher.update(body);
    decipher.final();
    return plain;
  } catch {
    throw new SealError('authentication');
  }
}

/**
 * Whether bytes are a server box v1 value (by their first byte; whether they open is another matter).
 *
 * @param sealed The stored bytes.
 */
export function isLegacyBox(sealed: Uint8Array): boolean {
  return sealed[0] === LEGACY_BOX_VERSION;
}

/**
 * Opens a server box v1 value.
 *
 * @param key The master key it was sealed with.
 * @param sealed The stored bytes.
 * @param aad The additional data it was sealed with ({@link NO_AAD} when none: GCM treats none and
 *   empty alike).
 * @returns The value's bytes.
 * @throws {SealError} `format` when the bytes are not one, `authentication` when they do not open.
 */
export function openLegacyBox(key: Uint8Array | KeyObject, sealed: Uint8Array, aad: Aad = NO_AAD): Buffer {
  if (sealed.length < LEGACY_BOX_HEADER_BYTES || !isLegacyBox(sealed)) throw new SealError('format');
  return openGcm(
    key,
    sealed.subarray(1, 1 + NONCE_BYTES),
    sealed.subarray(1 + NONCE_BYTES, LEGACY_BOX_HEADER_BYTES),
    aad,
    sealed.subarray(LEGACY_BOX_HEADER_BYTES),
  );
}

/** A server box v1 value opened in parts: its ciphertext in order, then {@link OpenInParts.final}. */
export interface OpenInParts {
  /** Decrypts the next part. Its bytes are not authenticated before {@link OpenInParts.final}. */
  update(part: Uint8Array): Buffer;
  /**
   * Authenticates everything given.
   *
   * @throws {SealError} `authentication` on a wrong key or altered data.
   */
  final(): void;
}

/**
 * Opens a server box v1 value too large to hold whole (an attachment stored in one piece), from its
 * first {@link LEGACY_BOX_HEADER_BYTES} bytes; its ciphertext follows in parts.
 *
 * @param key The master key.
 * @param header The value's first bytes.
 * @returns The opener.
 * @throws {SealError} `format` when the header is not one.
 */
export function openLegacyBoxInParts(key: Uint8Array | KeyObject, header: Uint8Array): OpenInParts {
  if (header.length !== LEGACY_BOX_HEADER_BYTES || !isLegacyBox(header)) throw new SealError('format');
  const decipher = createDecipheriv('aes-256-gcm', key, header.subarray(1, 1 + NONCE_BYTES), {
    authTagLength: TAG_BYTES,
  });
  decipher.setAuthTag(header.subarray(1 + NONCE_BYTES));
  return {
    update: (part) => decipher.update(part),
    final() {
      try {
        decipher.final();
      } catch {
        throw new SealError('authentication');
      }
    },
  };
}

const LINK_FORMAT = 'v1';

/**
 * The id a link text v1 value gives its key (16 hex digits).
 *
 * @param key The key.
 */
export function legacyLinkKeyId(key: Uint8Array): string {
  return createHmac('sha256', key).update('vaultline-slack-bot link key id').digest('hex').slice(0, 16);
}

/**
 * Whether a text is a link text v1 value (by its prefix).
 *
 * @param sealed The stored text.
 */
export function isLegacyLinkText(sealed: string): boolean {
  return sealed.startsWith(`${LINK_FORMAT}.`);
}

/**
 * Opens a link text v1 value with the key it names.
 *
 * @param keys The keys that may have sealed it.
 * @param sealed The stored text.
 * @param context The context it was sealed with.
 * @returns The value's bytes.
 * @throws {SealError} `format`, `unknown-key` or `authentication`.
 */
export function openLegacyLinkText(keys: readonly Uint8Array[], sealed: string, context: string): Buffer {
  const [format, id = '', nonce = '', tag = '', body = '', ...rest] = sealed.split('.');
  if (format !== LINK_FORMAT || rest.length > 0) throw new SealError('format');
  const key = keys.find((candidate) => legacyLinkKeyId(candidate) === id);
  if (!key) throw new SealError('unknown-key');
  return openGcm(
    key,
    Buffer.from(nonce, 'base64url'),
    Buffer.from(tag, 'base64url'),
    `vaultline-slack-bot/${LINK_FORMAT}/${context}`,
    Buffer.from(body, 'base64url'),
  );
}

/** The fields of a sealed file of the earlier format. */
export interface LegacyFields {
  readonly salt: Uint8Array;
  readonly iv: Uint8Array;
  readonly tag: Uint8Array;
  readonly data: Uint8Array;
}

/**
 * Opens the fields of a sealed file of the earlier format.
 *
 * @param fields The fields, decoded from base64.
 * @param material The key material.
 * @param context The context (HKDF's info).
 * @param aad The additional data.
 * @returns The value's bytes.
 * @throws {SealError} `format` when a field has the wrong size, `authentication` when they do not open.
 */
export function openLegacyFields(
  fields: LegacyFields,
  material: Uint8Array | string,
  context: string,
  aad: Aad,
): Buffer {
  if (fields.salt.length !== 16 || fields.iv.length !== NONCE_BYTES || fields.tag.length !== TAG_BYTES) {
    throw new SealError('format');
  }
  const key = Buffer.from(hkdfSync('sha256', material, fields.salt, context, 32));
  return openGcm(key, fields.iv, fields.tag, aad, fields.data);
}
