/**
 * `@vaultline/protocol/wire`: what a server (or a tool that speaks the API by hand) needs. The
 * endpoint table (`endpoints`, one row per operation) and its types, the codec (base64url values,
 * id lists, raw segments), the path segments each row decodes with, the response schemas, the
 * OpenAPI document generated from the table, the server identification constants
 * (`SERVER_INFO_PATH`, `ServerInfoSchema`, `SERVER_FEATURES`, `KEY_HEADER`), the answer profiles
 * a server may give per key (`API_PROFILES`, `TEAMPASS_PROFILE_DIFFERENCES`), how TeamPass 2
 * answers (`TEAMPASS2_ERRORS`, `TEAMPASS2_API_VERSION`), and how TeamPass 3 counts calls for its
 * rate limit (`paceBelowTeamPass3`).
 *
 * The legacy operations by their wire names (`readItems`, `readUserFolders`, `call(name, input)`):
 * `createWireClient` takes `createVaultClient`'s options, and `wireOf(vault)` reaches the wire
 * client under a `VaultClient` (same session and cache).
 *
 * Client code imports from `@vaultline/protocol` instead.
 *
 * @example
 * ```ts
 * import { endpoints } from '@vaultline/protocol/wire';
 *
 * const row = endpoints.readItems; // { operation: 'read/items', method: 'GET', path: '/read/items/{ids}', … }
 * const ids = row.params.ids.decode('1;2;3'); // [1, 2, 3]
 * ```
 * @module
 */

export type { CallOptions, WireClient, WireMethods } from './client/types.ts';
export {
  decodeFolderValues,
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
  ITEM_VALUE_NAMES,
  type ItemValues,
  isValidId,
  itemToValues,
  MAX_ID,
} from './legacy/codec.ts';
export {
  ENDPOINT_NAMES,
  type EndpointDefinition,
  type EndpointInput,
  type EndpointName,
  type EndpointOutput,
  type EndpointParams,
  type Endpoints,
  endpoints,
  type NoResults,
  type ResponseKind,
} from './legacy/endpoints.ts';
export {
  API_BASE_PATH,
  createOpenApiDocument,
  OPENAPI_DOCUMENT_PATH,
  type OpenApiDocument,
  type OpenApiObject,
  type OpenApiOptions,
} from './legacy/openapi.ts';
export {
  API_PROFILES,
  type ApiProfile,
  DEFAULT_API_PROFILE,
  type ProfileDifference,
  TEAMPASS_PROFILE_DIFFERENCES,
} from './legacy/profiles.ts';
export {
  AddFileResultSchema,
  AddFolderResultSchema,
  AddItemResultSchema,
  ErrorBodySchema,
  FileListSchema,
  FileRecordSchema,
  FolderListSchema,
  FolderRecordSchema,
  FoundItemListSchema,
  FoundItemRecordSchema,
  ItemListSchema,
  ItemRecordSchema,
  type ItemWireRecord,
  NewPasswordResultSchema,
  OkResultSchema,
  OtpResultSchema,
  StatusResultSchema,
} from './legacy/schemas.ts';
export {
  type DecodedFolderCreate,
  decodeLenientFolderUpdate,
  decodeTeamPassPasswordRules,
  folderCreateSegment,
  folderUpdateSegment,
  idListSegment,
  idSegment,
  itemSegment,
  PASSWORD_RULE_NAMES,
  type PasswordRequest,
  passwordRulesSegment,
  type Segment,
} from './legacy/segments.ts';
export {
  KEY_HEADER,
  SERVER_FEATURES,
  SERVER_INFO_PATH,
  type ServerFeature,
  type ServerInfo,
  ServerInfoSchema,
} from './legacy/server-info.ts';
export {
  TEAMPASS2_API_VERSION,
  TEAMPASS2_COMPLEXITY_LEVELS_BODY,
  TEAMPASS2_COMPLEXITY_LEVELS_PATH,
  TEAMPASS2_DELETE_BODY,
  TEAMPASS2_ERRORS,
  TEAMPASS2_VERSION_BODY,
  type TeamPass2Answer,
  type TeamPass2Error,
} from './legacy/teampass2.ts';
export {
  OIDC_EXCHANGE_PATH,
  type OidcExchangeRequest,
  OidcExchangeRequestSchema,
  type OidcExchangeResult,
  OidcExchangeResultSchema,
} from './oidc/exchange.ts';
export {
  paceBelowTeamPass3,
  TEAMPASS3_CALLS_PER_MINUTE,
  teamPass3MinuteEstimate,
} from './teampass3/rate-limit.ts';
export { vaultClientOf } from './vault/client.ts';
export { createWireClient } from './vault/wire-client.ts';
export { wireOf } from './vault/wire-of.ts';
