/**
 * `@vaultline/protocol`: what a client of a vault needs. The client (`createVaultClient`) and its
 * types, what the server can do (`ServerCapabilities`), the errors (`VaultError` and the
 * redaction helpers), access checks, `vaultline://` references, the rights table, the one search,
 * and the records apps handle (`Item`, `Folder`, `FoundItem`, `FileInfo`, `ItemWrite`, …).
 *
 * Servers import the wire (endpoint table, codec, segments, schemas, OpenAPI) from
 * `@vaultline/protocol/wire`; tests import the TeamPass fakes from `@vaultline/protocol/testing`.
 *
 * @example
 * ```ts
 * import { createVaultClient } from '@vaultline/protocol';
 *
 * const vault = createVaultClient({ baseUrl: 'http://127.0.0.1:8080', apiKey });
 * const { id } = await vault.addItem({ item: { label: 'db', password: 's3cret', folderId: 1 } });
 * const [item] = await vault.readItems({ ids: [id] });
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
export type { KeyTransport, KeyTransportOption, ServerCapabilities } from './capabilities.ts';
export type {
  CallOptions,
  RequestEvent,
  VaultClient,
  VaultClientOptions,
  VaultMethods,
} from './client/types.ts';
export { decodeId, type FolderEncoding, type ItemWrite, parseId } from './codec.ts';
export { createVaultClient } from './create-client.ts';
export type { DownloadedFile, FileUpload } from './endpoints.ts';
export {
  createRedactor,
  isVaultError,
  maskPasswords,
  REDACTED,
  type Redactor,
  serverWordsOf,
  toVaultError,
  VAULT_ERROR_CODES,
  VaultError,
  type VaultErrorCode,
  type VaultErrorOptions,
  withServerWords,
} from './errors.ts';
export {
  compareSearchHits,
  matchWords,
  type SearchFields,
  type SearchHit,
  type SearchRank,
  type SearchScope,
  searchWords,
} from './match-words.ts';
export { type FoundReference, findReferences } from './references/find-references.ts';
export {
  formatReference,
  type IdReference,
  isReference,
  MAX_REFERENCE_DEPTH,
  MAX_REFERENCE_LENGTH,
  type PathReference,
  parseReference,
  REFERENCE_FIELDS,
  REFERENCE_SCHEME,
  type ReferableItem,
  type Reference,
  type ReferenceField,
  type ReferenceFieldName,
  type ReferenceToItemOptions,
  referenceToItem,
} from './references/reference.ts';
export {
  isReferenceError,
  REFERENCE_ERROR_CODES,
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
  describeRight,
  type Permissions,
  permissionsOf,
  RIGHTS,
  type RightDefinition,
  unionOfRights,
} from './rights.ts';
export type { FileInfo, Folder, FoundItem, Item } from './schemas.ts';
export {
  planSearch,
  type SearchFallback,
  type SearchOptions,
  type SearchPlan,
  type SearchQuery,
  type SearchResult,
  type SearchStrategy,
  searchableRuns,
  searchItems,
} from './search.ts';
export { COMPLEXITY_LEVELS, type ComplexityLevel, type FolderCreate, type FolderUpdate } from './segments.ts';
export { foldLabel, MAX_SEARCH_LENGTH } from './text.ts';
