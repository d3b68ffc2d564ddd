/**
 * `@vaultline/protocol`: what a client of a vault needs. The client (`createVaultClient`) and its
 * types, what the server can do (`ServerCapabilities`), the errors (`VaultError` and the
 * redaction helpers), access checks, `vaultline://` references, the rights table, the one search,
 * and the records apps handle (`Item`, `Folder`, `FoundItem`, `FileInfo`, `ItemWrite`, …).
 *
 * Servers, and tools that speak the legacy API by its operations' names, import the wire
 * (`createWireClient`, endpoint table, codec, segments, schemas, OpenAPI) from
 * `@vaultline/protocol/wire`; tests import the TeamPass fakes from `@vaultline/protocol/testing`.
 *
 * @example
 * ```ts
 * import { createVaultClient } from '@vaultline/protocol';
 *
 * await using vault = createVaultClient({ baseUrl: 'http://127.0.0.1:8080', auth: apiKey });
 * const { id } = await vault.items.create({ label: 'db', password: 's3cret', folderId: 1 });
 * const item = await vault.items.get(id);
 * ```
 * @module
 */

export {
  type AccessChecker,
  type AccessCheckerOptions,
  createAccessChecker,
  type ItemRef,
  type UserAccess,
} from './access.ts';
export {
  type CredentialsNeeded,
  DIALECTS,
  type Dialect,
  type KeyTransport,
  type KeyTransportOption,
  SERVER_KINDS,
  type ServerCapabilities,
  type ServerKind,
} from './capabilities.ts';
export { memoryTokenCache } from './client/token-cache.ts';
export { type DetectDialectOptions, type DialectDetection, detectDialect } from './dialect.ts';
export {
  createRedactor,
  isVaultError,
  maskPasswords,
  type Redactor,
  serverWordsOf,
  toVaultError,
  VAULT_ERROR_CODES,
  VaultError,
  type VaultErrorCode,
  type VaultErrorOptions,
  type VaultErrorReason,
  withServerWords,
  withTokensRedacted,
} from './errors.ts';
export { EXIT, type ExitCode } from './exit-codes.ts';
export { type KeyAnswer, type KeyRules, teampassCapabilities } from './legacy/capabilities.ts';
export { decodeId, type FolderEncoding, type ItemWrite, parseId } from './legacy/codec.ts';
export type { DownloadedFile, FileUpload } from './legacy/endpoints.ts';
export type { FileInfo, Folder, FoundItem, Item, ItemCustomField, ItemOtpSecret } from './legacy/schemas.ts';
export {
  COMPLEXITY_LEVELS,
  type ComplexityLevel,
  type FolderCreate,
  type FolderUpdate,
} from './legacy/segments.ts';
export { type ServerInfo, ServerInfoSchema } from './legacy/server-info.ts';
export {
  compareSearchHits,
  type SearchHit,
  type SearchRank,
  searchWords,
} from './match-words.ts';
export {
  type ExchangedKey,
  exchangeOidcToken,
  type OidcExchangeOptions,
} from './oidc/exchange.ts';
export {
  type CharacterKind,
  characterKinds,
  estimateBits,
  generatePassword,
  meetsComplexity,
  PASSWORD_LENGTH,
  type PasswordRules,
  POOL_SIZES,
  requiredBits,
} from './password-generator.ts';
export {
  type CheckReferencesOptions,
  checkReferences,
  type ReferenceCheck,
} from './references/check-references.ts';
export {
  type EnvironmentReferences,
  type FilledVariable,
  fillEnvironment,
  findEnvironmentReferences,
} from './references/environment.ts';
export { type FoundReference, findReferences } from './references/find-references.ts';
export {
  formatReference,
  type IdReference,
  OTP_FIELD,
  type PathReference,
  parseReference,
  REFERENCE_FIELDS,
  type ReferableItem,
  type Reference,
  type ReferenceField,
  type ReferenceFieldName,
  type ReferenceToItemOptions,
  referenceToItem,
} from './references/reference.ts';
export {
  isReferenceError,
  type ReferenceErrorCode,
  VaultReferenceError,
  type VaultReferenceErrorOptions,
} from './references/reference-error.ts';
export {
  type ReferenceClient,
  type ResolvedItem,
  type ResolvedReference,
  type ResolvedValue,
  type ResolveReferencesOptions,
  resolveReferences,
  type UnresolvedReference,
} from './references/resolve-references.ts';
export {
  ACCESS_TYPES,
  type AccessType,
  type ApiPermissions,
  describeRight,
  type Permissions,
  permissionsOf,
  RIGHTS,
  type RightDefinition,
  unionOfRights,
} from './rights.ts';
export { fixedServerWordsOf } from './server-wordings.ts';
export { signInLoginKey, TEAMPASS3_SIGN_IN_LOCKOUT } from './teampass3/sign-in-lockout.ts';
export {
  foldLabel,
  joinWordParts,
  MAX_SEARCH_LENGTH,
  neutralizeText,
  replaceUnsafeCharacters,
} from './text.ts';
export type { RequestEvent } from './transport/transport.ts';
export { actingLoginOf, createVaultClient } from './vault/client.ts';
export {
  type ApiKeyCredentials,
  CREDENTIAL_KIND_LIST,
  CREDENTIAL_KINDS,
  CREDENTIAL_SECRETS,
  type CredentialFields,
  type CredentialKind,
  type CredentialSecret,
  credentialKindOf,
  credentialsFrom,
  credentialsOf,
  type KindlessCredentials,
  type PasswordCredentials,
  type PersonalAccessTokenCredentials,
  secretsOf,
  type VaultAuth,
  type VaultCredentials,
} from './vault/credentials.ts';
export type {
  ActingOptions,
  DetectedServer,
  DialectOption,
  ItemPages,
  ItemSearchOptions,
  LegacyOptions,
  OtpCode,
  RequestOptions,
  RetryOptions,
  SearchFallback,
  SearchResult,
  SearchStrategy,
  TeamPass3Options,
  TokenCache,
  UrlMatch,
  VaultClient,
  VaultClientOptions,
  VaultFiles,
  VaultFolders,
  VaultIdentity,
  VaultItems,
} from './vault/types.ts';
