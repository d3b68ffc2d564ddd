/**
 * An OpenAPI 3.1 document of the API, generated from the endpoint table: one operation per row, its
 * path segments with their encoding, its answer's schema (the row's valibot schema through
 * `@valibot/to-json-schema`), every error answer, and the two ways a key travels. No TeamPass
 * release describes its API in a form tools can read; this one is derived, so it cannot drift.
 *
 * @see ../../../../docs/api.md
 * @module
 */

import { type ConversionConfig, type OverrideSchemaContext, toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import type { VaultErrorCode } from '../errors.ts';
import { OIDC_EXCHANGE_PATH, OidcExchangeRequestSchema, OidcExchangeResultSchema } from '../oidc/exchange.ts';
import { MAX_ID } from './codec.ts';
import { ENDPOINT_NAMES, type EndpointDefinition, endpoints } from './endpoints.ts';
import { API_PROFILES, DEFAULT_API_PROFILE, TEAMPASS_PROFILE_DIFFERENCES } from './profiles.ts';
import {
  ErrorBodySchema,
  FileRecordSchema,
  FolderRecordSchema,
  FoundItemRecordSchema,
  ItemRecordSchema,
  OkResultSchema,
} from './schemas.ts';
import {
  type AnySegment,
  folderCreateSegment,
  folderUpdateSegment,
  idListSegment,
  idSegment,
  itemSegment,
  PASSWORD_RULE_NAMES,
  passwordRulesSegment,
} from './segments.ts';
import { SERVER_FEATURES, SERVER_INFO_PATH, ServerInfoSchema } from './server-info.ts';
import { TEAMPASS2_API_VERSION } from './teampass2.ts';

/** A JSON object of the document (an operation, a schema, an answer…). */
export type OpenApiObject = { [key: string]: unknown };

/** The path under which every operation lives. */
export const API_BASE_PATH = '/api/index.php';

/** Where a Vaultline server serves the document (no key needed: it holds no data). */
export const OPENAPI_DOCUMENT_PATH = '/openapi.json';

/** The OpenAPI version the document follows. */
export const OPENAPI_VERSION = '3.1.1';

/** The operation id of the keyless identification request, which is not a row of the table. */
export const SERVER_INFO_OPERATION_ID = 'serverInfo';

/** Options of {@link createOpenApiDocument}. */
export interface OpenApiOptions {
  /** `info.version`: the version of the server that serves the document. Default `1.0.0`. */
  version?: string | undefined;
  /**
   * The server's base URL (the part before `/api/index.php`). Absent by default: tools then resolve
   * paths against the address the document was fetched from.
   */
  serverUrl?: string | undefined;
}

/** An OpenAPI 3.1 document. */
export interface OpenApiDocument {
  /** The OpenAPI version, {@link OPENAPI_VERSION}. */
  openapi: string;
  /** Title, version, description and license. */
  info: OpenApiObject & { title: string; version: string };
  /** The server, when {@link OpenApiOptions.serverUrl} is given. */
  servers?: { url: string }[];
  /** Keys are accepted in the query or in a header. */
  security: Record<string, string[]>[];
  /** One path per operation, under {@link API_BASE_PATH}. */
  paths: Record<string, OpenApiObject>;
  /** Shared schemas, answers and security schemes. */
  components: OpenApiObject;
}

/** One error answer: its status, the `code`s it carries and when it happens (docs/api.md, Errors). */
export interface ErrorAnswer {
  /** The HTTP status. */
  readonly status: number;
  /** The name of the answer in `components.responses`. */
  readonly name: string;
  /** The `code` values the body carries with this status. */
  readonly codes: readonly VaultErrorCode[];
  /** When it happens. */
  readonly description: string;
  /**
   * Which operations can get it: all, writes only, multipart uploads only, or the operations that
   * move an attachment's bytes (add/file, read/files).
   */
  readonly applies: 'all' | 'write' | 'multipart' | 'transfer' | 'not-transfer';
}

/**
 * Every error answer of a Vaultline server, as `docs/api.md` lists them (a test holds the two equal).
 * Real TeamPass servers answer `{"err":…}` without a `code`, and often with HTTP 200, 405 or 500.
 */
export const ERROR_ANSWERS: readonly ErrorAnswer[] = [
  {
    status: 400,
    name: 'BadRequest',
    codes: ['invalid_request'],
    description:
      'A segment that does not decode, a missing or too long value, a wrong method, more than 1000 ids, a body that is not multipart.',
    applies: 'all',
  },
  {
    status: 401,
    name: 'Unauthorized',
    codes: ['unauthorized'],
    description:
      'No key, or a key that is unknown or revoked. The key is never echoed. A revoked key is told apart: `API key revoked.` with `reason` `key_revoked`.',
    applies: 'all',
  },
  {
    status: 403,
    name: 'Forbidden',
    codes: ['forbidden'],
    description: "The key's IP allow-list refuses the address, or a user-bound key lacks the right.",
    applies: 'all',
  },
  {
    status: 404,
    name: 'NotFound',
    codes: ['not_found', 'invalid_request'],
    description:
      'An unknown id on a single-target operation, an unknown login, a folder the key cannot see (`not_found`); a path that is no operation (`invalid_request`).',
    applies: 'all',
  },
  {
    status: 408,
    name: 'RequestTimeout',
    codes: ['timeout'],
    description:
      'The request (headers and body) was not received within the request timeout; the connection is then closed.',
    applies: 'all',
  },
  {
    status: 409,
    name: 'Conflict',
    codes: ['duplicate_label', 'invalid_request'],
    description:
      "A label similar to an existing item's (`duplicate_label`); deleting a folder that still holds items or sub-folders, or a write that conflicts with one made at the same moment (`invalid_request`).",
    applies: 'write',
  },
  {
    status: 413,
    name: 'ContentTooLarge',
    codes: ['too_large'],
    description: 'An attachment above the size limit.',
    applies: 'multipart',
  },
  {
    status: 414,
    name: 'UriTooLong',
    codes: ['too_large'],
    description: 'A request URL above the maximum length.',
    applies: 'all',
  },
  {
    status: 429,
    name: 'TooManyRequests',
    codes: ['rate_limited'],
    description: 'Too many requests, or too many failed keys, from one address.',
    applies: 'all',
  },
  {
    status: 500,
    name: 'ServerError',
    codes: ['server'],
    description: 'An unexpected failure; the body never holds SQL or a stack.',
    applies: 'all',
  },
  {
    status: 501,
    name: 'Unsupported',
    codes: ['unsupported'],
    description:
      "A server in upstream mode only: what the TeamPass behind it lacks (attachments, one-time codes, another user's items or folders on TeamPass 3). Nothing was sent upstream.",
    applies: 'all',
  },
  {
    status: 503,
    name: 'Unavailable',
    codes: ['server'],
    description:
      'The database is not reachable (a restart of PostgreSQL, say); nothing was changed. Retry after `Retry-After`.',
    applies: 'not-transfer',
  },
  {
    status: 503,
    name: 'TransfersBusy',
    codes: ['rate_limited', 'server'],
    description:
      'The server already moves its most attachments at once, or the key its share of them (`rate_limited`), or the database is not reachable (`server`); nothing of the request was read or stored. Retry after `Retry-After`.',
    applies: 'transfer',
  },
];

/**
 * The answer only keys of the `teampass` profile get: TeamPass's 405s. (Their other refusals are
 * HTTP 200 with `{"err": …}`, as TeamPass answers; see `x-vaultline-profiles`.)
 */
const TEAMPASS_PROFILE_REFUSAL = {
  status: 405,
  name: 'TeamPassProfileRefusal',
  description:
    'Keys of the `teampass` profile only, as TeamPass answers: values or ids that do not decode (`Item definition not complete`, `Item definition not numeric`), a path that is no operation or a wrong method (`Method not authorized`, code `METHOD_NOT_AUTHORIZED`), an address the key\'s allow-list refuses (`Ip address not allowed.`). Their other refusals are HTTP 200 with `{"err": …}` in TeamPass\'s words.',
} as const;

/** The answers the keyless identification request can get. */
const SERVER_INFO_ERRORS = [429, 500];

/** The answers the keyless OIDC exchange can get besides its own. */
const OIDC_EXCHANGE_ERRORS = [400, 401, 413, 429, 500];

/** The keyless OIDC exchange (`POST …/auth/oidc`), which is not a row of the table. */
function oidcExchangeOperation(): OpenApiObject {
  const responses: OpenApiObject = {
    '200': {
      description: 'A short-lived API key, scoped by the trust policy; shown once.',
      content: { 'application/json': { schema: jsonSchemaOf(OidcExchangeResultSchema) } },
    },
    '502': {
      description: "The issuer's discovery document or key set could not be fetched, and none is cached.",
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
    },
  };
  for (const answer of ERROR_ANSWERS.filter((a) => OIDC_EXCHANGE_ERRORS.includes(a.status)))
    responses[String(answer.status)] = { $ref: `#/components/responses/${answer.name}` };
  return {
    post: {
      operationId: 'oidcExchange',
      summary: 'auth/oidc',
      description:
        "Exchanges a workload's OIDC identity token (GitHub Actions, GitLab CI, a Kubernetes service account) for a short-lived API key, under a trust policy (`vaultline-server trust add`). Needs no key; the token travels in the body, never in the URL. 401 says why a token is refused.",
      security: [{}],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: jsonSchemaOf(OidcExchangeRequestSchema) } },
      },
      responses,
    },
  };
}

/** Characters of a base64url value as servers accept them (padding and `+` too). */
const B64 = '[A-Za-z0-9_+=-]*';

/**
 * Said of every segment holding `;`: OpenAPI has no `allowReserved` for path parameters, and
 * generic clients percent-encode `;` as `%3B`, which no server of this API reads.
 */
const LITERAL_SEMICOLONS =
  'The `;` separators travel as they are: the segment is never percent-decoded, so `%3B` is refused.';

/** How a segment is documented: its schema and how it is encoded. */
interface SegmentDoc {
  /** What the encoder writes and the decoder reads. */
  readonly schema: OpenApiObject;
  /** How the value becomes the segment. */
  readonly encoding: string;
}

/**
 * The schema and encoding of one path segment.
 *
 * @param segment The segment of a row.
 * @returns Its documentation.
 */
function segmentDoc(segment: AnySegment): SegmentDoc {
  const base64 =
    'base64url of the UTF-8 text (`+`→`-`, `/`→`_`; padding optional, best left out as generic clients percent-encode `=`)';
  if (segment === idSegment) {
    return {
      schema: { type: 'integer', minimum: 1, maximum: MAX_ID },
      encoding: 'Decimal digits: no sign, no fraction, no leading `+`.',
    };
  }
  if (segment === idListSegment) {
    return {
      schema: { type: 'string', pattern: '^[0-9]{1,16}(;[0-9]{1,16})*$' },
      encoding: `Decimal digits each, at most 1000 ids. ${LITERAL_SEMICOLONS}`,
    };
  }
  if (segment === itemSegment) {
    return {
      schema: { type: 'string', pattern: `^${B64}(;${B64}){8}$` },
      encoding: `Each value is ${base64}; the nine are joined by \`;\`. ${LITERAL_SEMICOLONS}`,
    };
  }
  if (segment === folderCreateSegment || segment === folderUpdateSegment) {
    const count = segment === folderCreateSegment ? 5 : 3;
    return {
      schema: { type: 'string', pattern: `^${B64}(;${B64}){${count - 1}}$|^${B64.slice(0, -1)}+$` },
      encoding: `The ${count} values joined by \`;\`, then ${base64}: the form TeamPass requires. Each value encoded on its own and joined by \`;\` is read too. ${LITERAL_SEMICOLONS}`,
    };
  }
  if (segment === passwordRulesSegment) {
    return {
      schema: { type: 'string', pattern: '^[0-9]*(;[^;/]*)*$' },
      encoding: `Up to eight values joined by \`;\`, raw (not base64), in TeamPass's order: ${PASSWORD_RULE_NAMES.map((name) => `\`${name}\``).join(', ')}. \`size\` is the length (4 to 128; empty or \`0\`: the shortest that reaches the complexity level, at least 16); the flags are \`1\` or \`0\` (\`secure\`: every class; empty or absent: the generator's default, every class on, look-alikes and base64 off); \`complexity\` is a folder complexity level the password must reach. Values past the eighth are ignored. ${LITERAL_SEMICOLONS}`,
    };
  }
  // A raw segment: a login or a search string.
  return {
    schema: { type: 'string', minLength: 1 },
    encoding:
      "`/`, `\\`, `?`, `#` and control characters are refused; characters a URL cannot carry are percent-encoded and decoded once by a Vaultline server. TeamPass never percent-decodes: it reads only `[A-Za-z0-9_:'-]` here.",
  };
}

/** Named schemas, emitted once under `components.schemas` and referenced from each answer. */
const DEFINITIONS = {
  ItemRecord: ItemRecordSchema,
  FoundItemRecord: FoundItemRecordSchema,
  FolderRecord: FolderRecordSchema,
  FileRecord: FileRecordSchema,
  ErrorBody: ErrorBodySchema,
  ServerInfo: ServerInfoSchema,
} satisfies Record<string, v.GenericSchema>;

/**
 * The record schemas take a fast path for canonical records first: a `custom` check in a union with
 * the tolerant schema it is a subset of. JSON Schema cannot express the check and needs no fast
 * path, so such unions are described by their other options.
 *
 * @param context The conversion context.
 * @returns The replacement, or `undefined` to keep the default conversion.
 */
function overrideSchema(context: OverrideSchemaContext): OpenApiObject | undefined {
  const schema = context.valibotSchema;
  if (schema.type === 'custom') return {};
  if (schema.type !== 'union') return undefined;
  const options = (schema as unknown as { options: readonly v.GenericSchema[] }).options;
  const converted = (context.jsonSchema as { anyOf: OpenApiObject[] }).anyOf;
  const kept = converted.filter((_, i) => options[i]!.type !== 'custom');
  return kept.length === 1 ? kept[0]! : { anyOf: kept };
}

/** How every valibot schema is converted: the wire form (before transforms), JSON Schema 2020-12. */
const CONVERSION: ConversionConfig = {
  target: 'draft-2020-12',
  typeMode: 'input',
  errorMode: 'throw',
  definitions: DEFINITIONS,
  overrideSchema,
  overrideRef: (context) => `#/components/schemas/${context.referenceId}`,
};

/**
 * Converts a valibot schema of an answer to the JSON Schema of the document.
 *
 * @param schema The valibot schema.
 * @returns The JSON Schema, `$ref`s pointing into `components.schemas`.
 */
function jsonSchemaOf(schema: v.GenericSchema): OpenApiObject {
  const { $schema: _dialect, $defs: _defs, ...rest } = toJsonSchema(schema, CONVERSION) as OpenApiObject;
  return rest;
}

/**
 * The named schemas, each converted on its own (so a definition is never a reference to itself).
 *
 * @returns The `components.schemas` object.
 */
function componentSchemas(): Record<string, OpenApiObject> {
  const out: Record<string, OpenApiObject> = {};
  for (const [name, schema] of Object.entries(DEFINITIONS)) {
    const { definitions: _definitions, ...config } = CONVERSION;
    const {
      $schema: _dialect,
      $defs: _defs,
      ...rest
    } = toJsonSchema(schema, {
      ...config,
      definitions: Object.fromEntries(Object.entries(DEFINITIONS).filter(([other]) => other !== name)),
    }) as OpenApiObject;
    out[name] = rest;
  }
  return out;
}

/**
 * The success answer's content: JSON, and the text `OK` where the schema allows that string.
 *
 * @param schema The JSON Schema of the body.
 * @returns The `content` object.
 */
function jsonContent(schema: OpenApiObject): OpenApiObject {
  const content: OpenApiObject = { 'application/json': { schema } };
  const options = (schema.anyOf as OpenApiObject[] | undefined) ?? [schema];
  const text = options.find((option) => typeof option.const === 'string');
  // The spec's deletes answer the bare text `OK` (text/plain), not the JSON string "OK".
  if (text) content['text/plain'] = { schema: { type: 'string', const: text.const } };
  return content;
}

/**
 * What the operation's description adds to the row's summary: how the client treats it.
 *
 * @param row The row.
 * @returns The description.
 */
function describeRow(row: EndpointDefinition): string {
  const lines = [row.summary];
  if (row.secret)
    lines.push('The answer carries secrets (passwords or attachment contents): the read is audited.');
  if (row.batch) {
    const size = row.batch.size === undefined ? '' : ` (at most ${row.batch.size} per call)`;
    lines.push(`The client may split \`${row.batch.param}\` over several calls${size}.`);
  }
  if (row.keep) {
    lines.push(
      `Records whose \`${row.keep.field}\` is not among \`${row.keep.param}\` are dropped by the client.`,
    );
  }
  if (row.schema === OkResultSchema) {
    lines.push(
      'Keys of the `teampass` profile get `{"status":"OK"}` (`application/json`), as TeamPass answers.',
    );
  }
  if (Object.values(row.params).includes(folderUpdateSegment)) {
    lines.push(
      "Keys of the `teampass` profile may also send four values (the fourth ignored), or add/folder's five and more (title, complexity level, parent, renewal period, personal: parent and personal ignored), as scripts written for TeamPass do.",
    );
  }
  if (row.access === 'read') {
    const target = Object.values(row.params).some((segment) => segment === idSegment);
    if (row.noResults === 'empty') {
      lines.push(
        'Nothing found is an empty collection (TeamPass answers `{"err":"No results"}`, read as empty).',
      );
    } else if (target) {
      lines.push('TeamPass answers `{"err":"No results"}` for a missing target, read as not found.');
    }
    lines.push('A read: the client retries it on network errors and 5xx.');
  } else {
    lines.push('A write: the client never retries it.');
  }
  return lines.join('\n\n');
}

/**
 * The answers of one operation: success, then every error it can get.
 *
 * @param row The row.
 * @returns The `responses` object.
 */
function responsesOf(row: EndpointDefinition): OpenApiObject {
  const responses: OpenApiObject = {};
  if (row.response === 'binary') {
    responses['200'] = {
      description: "The attachment's bytes, with its recorded media type.",
      headers: {
        'Content-Disposition': {
          description: '`attachment; filename="<ascii>"; filename*=UTF-8\'\'<name>`',
          schema: { type: 'string' },
        },
      },
      content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } },
    };
  } else {
    responses['200'] = { description: row.summary, content: jsonContent(jsonSchemaOf(row.schema!)) };
  }
  for (const answer of ERROR_ANSWERS) {
    const applies =
      answer.applies === 'all' ||
      (answer.applies === 'write' && row.access === 'write') ||
      (answer.applies === 'multipart' && row.multipart === true) ||
      (answer.applies === 'transfer' && (row.multipart === true || row.response === 'binary')) ||
      (answer.applies === 'not-transfer' && row.multipart !== true && row.response !== 'binary');
    if (applies) responses[String(answer.status)] = { $ref: `#/components/responses/${answer.name}` };
  }
  responses[String(TEAMPASS_PROFILE_REFUSAL.status)] = {
    $ref: `#/components/responses/${TEAMPASS_PROFILE_REFUSAL.name}`,
  };
  return responses;
}

/**
 * A path parameter's description: what it holds and how it is encoded.
 *
 * @param segment The segment.
 * @returns The description.
 */
function describeSegment(segment: AnySegment): string {
  const what = segment.description.charAt(0).toUpperCase() + segment.description.slice(1);
  const secret = segment.secret ? ' Carries secrets: servers never log it.' : '';
  return `${what}. ${segmentDoc(segment).encoding}${secret}`;
}

/**
 * One operation of the table.
 *
 * @param name The row's name, used as `operationId`.
 * @param row The row.
 * @returns The OpenAPI operation.
 */
function operationOf(name: string, row: EndpointDefinition): OpenApiObject {
  const operation: OpenApiObject = {
    operationId: name,
    summary: row.operation,
    description: describeRow(row),
  };
  const parameters = Object.entries(row.params).map(([param, segment]) => ({
    name: param,
    in: 'path',
    required: true,
    description: describeSegment(segment),
    schema: segmentDoc(segment).schema,
  }));
  if (parameters.length > 0) operation.parameters = parameters;
  if (row.multipart) {
    operation.requestBody = {
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            properties: {
              item_id: {
                type: 'string',
                pattern: '^[0-9]{1,16}$',
                description: 'The item the file is attached to.',
              },
              file: {
                type: 'string',
                contentMediaType: 'application/octet-stream',
                description: "The file's bytes; the part's `filename` names the attachment.",
              },
            },
            required: ['item_id', 'file'],
          },
        },
      },
    };
  }
  operation.responses = responsesOf(row);
  operation['x-vaultline-access'] = row.access;
  operation['x-vaultline-secret'] = row.secret;
  return operation;
}

/**
 * The error answers, each with the body `{"err": …, "code": …}`.
 *
 * @returns The `components.responses` object.
 */
function errorResponses(): Record<string, OpenApiObject> {
  const out: Record<string, OpenApiObject> = {};
  for (const answer of ERROR_ANSWERS) {
    const response: OpenApiObject = {
      description: answer.description,
      content: {
        'application/json': {
          schema: {
            allOf: [
              { $ref: '#/components/schemas/ErrorBody' },
              { type: 'object', properties: { code: { enum: [...answer.codes] } } },
            ],
          },
        },
      },
    };
    if (answer.status === 429 || answer.status === 503) {
      response.headers = {
        'Retry-After': { description: 'Seconds until a request may succeed.', schema: { type: 'integer' } },
      };
    }
    out[answer.name] = response;
  }
  out[TEAMPASS_PROFILE_REFUSAL.name] = {
    description: TEAMPASS_PROFILE_REFUSAL.description,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
  };
  return out;
}

/**
 * Builds the OpenAPI 3.1 document of the API from the endpoint table: one operation per row under
 * `/api/index.php`, plus the keyless `GET /api/index.php/info/version`.
 *
 * @param options The version and server URL.
 * @returns The document, a plain JSON value.
 * @example
 * ```ts
 * import { createOpenApiDocument } from '@vaultline/protocol';
 *
 * const body = JSON.stringify(createOpenApiDocument({ version: '1.4.0' }));
 * ```
 */
export function createOpenApiDocument(options: OpenApiOptions = {}): OpenApiDocument {
  const paths: Record<string, OpenApiObject> = {};
  for (const name of ENDPOINT_NAMES) {
    const row: EndpointDefinition = endpoints[name];
    paths[`${API_BASE_PATH}${row.path}`] = { [row.method.toLowerCase()]: operationOf(name, row) };
  }
  const serverInfoResponses: OpenApiObject = {
    '200': {
      description: `A Vaultline server: its name, version and features (any other answer means a TeamPass server). Asked with a key of the \`teampass\` profile: TeamPass's \`{"api-version":"${TEAMPASS2_API_VERSION}"}\`.`,
      content: {
        'application/json': {
          schema: {
            anyOf: [
              { $ref: '#/components/schemas/ServerInfo' },
              {
                type: 'object',
                properties: { 'api-version': { type: 'string', const: TEAMPASS2_API_VERSION } },
                required: ['api-version'],
              },
            ],
          },
        },
      },
    },
  };
  for (const answer of ERROR_ANSWERS.filter((a) => SERVER_INFO_ERRORS.includes(a.status))) {
    serverInfoResponses[String(answer.status)] = { $ref: `#/components/responses/${answer.name}` };
  }
  paths[`${API_BASE_PATH}${SERVER_INFO_PATH}`] = {
    get: {
      operationId: SERVER_INFO_OPERATION_ID,
      summary: 'info/version',
      description: `How a Vaultline server identifies itself; needs no key and carries no vault data. Features: ${SERVER_FEATURES.map((f) => `\`${f}\``).join(', ')}. A key, when sent, is checked: one of the \`teampass\` profile gets TeamPass's version instead, as scripts written for TeamPass read it.`,
      security: [{}, { apiKey: [] }, { bearer: [] }],
      responses: serverInfoResponses,
    },
  };
  paths[`${API_BASE_PATH}${OIDC_EXCHANGE_PATH}`] = oidcExchangeOperation();
  const document: OpenApiDocument = {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'Vaultline credential-vault API',
      version: options.version ?? '1.0.0',
      description:
        'The TeamPass-style credential-vault API as Vaultline servers answer it, generated from the endpoint table of `@vaultline/protocol`. Every operation is a path under `/api/index.php`; write values travel base64url-encoded in the path. Errors are `{"err": …, "code": …}` with a meaningful status; TeamPass servers answer `{"err": …}` without `code`, often with HTTP 200, 405 or 500. Each API key has an answer profile: `vaultline` (the default, described here) or `teampass`, which answers where a script can tell as TeamPass 2 does, so that scripts written for it keep working; `x-vaultline-profiles` lists every difference.',
      license: { name: 'MIT', identifier: 'MIT' },
      'x-vaultline-profiles': {
        profiles: [...API_PROFILES],
        default: DEFAULT_API_PROFILE,
        teampass: TEAMPASS_PROFILE_DIFFERENCES.map((difference) => ({ ...difference })),
      },
    },
    security: [{ apiKey: [] }, { bearer: [] }],
    paths,
    components: {
      schemas: componentSchemas(),
      responses: errorResponses(),
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'query',
          name: 'apikey',
          description: 'The API key in the query string, as TeamPass takes it.',
        },
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'The API key as `Authorization: Bearer <key>`, on servers with the `bearer-auth` feature; it stays out of URLs and access logs.',
        },
      },
    },
  };
  if (options.serverUrl !== undefined) document.servers = [{ url: options.serverUrl }];
  return document;
}
