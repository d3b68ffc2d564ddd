/**
 * The Vaultline protocol core: the path codec, the endpoint table, response schemas, a client over
 * ofetch, typed errors and access checks for the TeamPass-style credential-vault API.
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
export {
  capabilitiesOf,
  createServerProbe,
  type Identification,
  type IdentifyRequest,
  identifyServer,
  type KeyTransport,
  type KeyTransportOption,
  type ServerCapabilities,
  type ServerProbe,
  type ServerProbeOptions,
  teampassCapabilities,
  VAULTLINE_MAX_RESULTS,
} from './capabilities.ts';
export {
  decodeFolderValues,
  decodeId,
  decodeIdList,
  decodeIdValue,
  decodeItemValues,
  decodeRawSegment,
  decodeValue,
  decodeValueList,
  encodeFolderValues,
  encodeId,
  encodeIdList,
  encodeItemValues,
  encodeRawSegment,
  encodeValue,
  encodeValueList,
  type FolderEncoding,
  ITEM_VALUE_NAMES,
  type ItemValues,
  type ItemWrite,
  isValidId,
  itemToValues,
  MAX_ID,
  parseId,
} from './codec.ts';
export {
  type CallOptions,
  createVaultClient,
  type RequestEvent,
  type VaultClient,
  type VaultClientOptions,
  type VaultMethods,
} from './create-client.ts';
export {
  type DownloadedFile,
  ENDPOINT_NAMES,
  type EndpointDefinition,
  type EndpointInput,
  type EndpointName,
  type EndpointOutput,
  type EndpointParams,
  type Endpoints,
  endpoints,
  type FileUpload,
  fillPath,
  type NoResults,
  type ResponseKind,
} from './endpoints.ts';
export {
  createRedactor,
  isVaultError,
  maskPasswords,
  REDACTED,
  type Redactor,
  serverWordsOf,
  toVaultError,
  VAULT_ERROR_CODES,
  VAULT_ERROR_REASONS,
  VaultError,
  type VaultErrorCode,
  type VaultErrorOptions,
  type VaultErrorReason,
  withServerWords,
} from './errors.ts';
export { EXIT, type ExitCode } from './exit-codes.ts';
export {
  API_BASE_PATH,
  createOpenApiDocument,
  ERROR_ANSWERS,
  type ErrorAnswer,
  OPENAPI_DOCUMENT_PATH,
  OPENAPI_VERSION,
  type OpenApiDocument,
  type OpenApiObject,
  type OpenApiOptions,
  SERVER_INFO_OPERATION_ID,
} from './openapi.ts';
export { type FoundReference, findReferences } from './references/find-references.ts';
export {
  escapeReferenceSegment,
  FILE_FIELD_PREFIX,
  fieldText,
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
export { classifyError } from './response.ts';
export {
  ACCESS_TYPES,
  type AccessType,
  describeRight,
  type Permissions,
  parseRight,
  permissionsOf,
  RIGHTS,
  type RightDefinition,
  rightOf,
  unionOfRights,
} from './rights.ts';
export {
  AddFileResultSchema,
  AddFolderResultSchema,
  AddItemResultSchema,
  collection,
  ErrorBodySchema,
  type FileInfo,
  FileListSchema,
  FileRecordSchema,
  type Folder,
  FolderListSchema,
  FolderRecordSchema,
  type FoundItem,
  FoundItemListSchema,
  FoundItemRecordSchema,
  type Item,
  ItemListSchema,
  ItemRecordSchema,
  type ItemWireRecord,
  OkResultSchema,
  RawItemRecordSchema,
  StatusResultSchema,
  splitPath,
} from './schemas.ts';
export {
  planSearch,
  type SearchOptions,
  type SearchQuery,
  type SearchResult,
  type SearchStrategy,
  searchableRuns,
  searchItems,
} from './search.ts';
export {
  type AnySegment,
  COMPLEXITY_LEVELS,
  type ComplexityLevel,
  type DecodedFolderCreate,
  type EncodeContext,
  type FolderCreate,
  type FolderUpdate,
  folderCreateSegment,
  folderUpdateSegment,
  idListSegment,
  idSegment,
  itemSegment,
  rawSegment,
  type Segment,
} from './segments.ts';
export {
  KEY_HEADER,
  SERVER_FEATURES,
  SERVER_INFO_PATH,
  type ServerFeature,
  type ServerInfo,
  ServerInfoSchema,
} from './server-info.ts';
export { foldLabel, MAX_SEARCH_LENGTH, neutralizeText } from './text.ts';
