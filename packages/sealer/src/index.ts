/**
 * `@vaultline/sealer`: Vaultline's one way to seal values at rest (the vault server's secrets, the
 * Slack bot's linked accounts, the sealed files of the CLI and the GitHub Action): AES-256-GCM in
 * one versioned format with additional data, a keyring for rotation, HKDF-derived keys, and readers
 * of the formats it replaced. See `sealer.ts` for the format, `legacy.ts` for the old ones.
 *
 * @module
 */

export {
  isLegacyBox,
  isLegacyLinkText,
  LEGACY_BOX_HEADER_BYTES,
  type LegacyFields,
  legacyLinkKeyId,
  type OpenInParts,
  openLegacyBox,
  openLegacyBoxInParts,
  openLegacyFields,
  openLegacyLinkText,
} from './legacy.ts';
export {
  type Aad,
  createDerivedSealer,
  createKeyring,
  FORMAT_VERSION,
  fromText,
  KEY_BYTES,
  type Keyring,
  keyIdOf,
  MAX_SEALED_BYTES,
  NO_AAD,
  SealError,
  type SealErrorCode,
  type Sealer,
  type SealerOptions,
  toText,
} from './sealer.ts';
