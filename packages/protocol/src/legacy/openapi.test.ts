import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { VAULT_ERROR_CODES } from '../errors.ts';
import { OIDC_EXCHANGE_PATH } from '../oidc/exchange.ts';
import { ENDPOINT_NAMES, endpoints } from './endpoints.ts';
import {
  API_BASE_PATH,
  createOpenApiDocument,
  ERROR_ANSWERS,
  OPENAPI_VERSION,
  type OpenApiObject,
  SERVER_INFO_OPERATION_ID,
} from './openapi.ts';
import { TEAMPASS_PROFILE_DIFFERENCES } from './profiles.ts';
import { SERVER_INFO_PATH } from './server-info.ts';

const doc = createOpenApiDocument();

function operation(path: string, method: string): OpenApiObject {
  const item = doc.paths[`${API_BASE_PATH}${path}`];
  expect(item, `no path ${path}`).toBeDefined();
  const op = item![method] as OpenApiObject | undefined;
  expect(op, `no ${method} ${path}`).toBeDefined();
  return op!;
}

/** Compiles the JSON Schema of an answer, with the document's named schemas in reach of its `$ref`s. */
function validator(schema: unknown): (body: unknown) => boolean {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  const root = { ...(schema as OpenApiObject), components: { schemas: doc.components.schemas } };
  const check = ajv.compile(root);
  return (body) => check(body) === true;
}

function successSchema(name: keyof typeof endpoints, media = 'application/json'): unknown {
  const row = endpoints[name];
  const op = operation(row.path, row.method.toLowerCase());
  const ok = (op.responses as Record<string, { content: Record<string, { schema: unknown }> }>)['200']!;
  return ok.content[media]?.schema;
}

const wireItem = {
  id: '12',
  label: 'db',
  description: '',
  login: 'app',
  email: '',
  url: '',
  pw: 's3cret',
  folder_id: '3',
  path: 'Team > Staging',
};

describe('createOpenApiDocument', () => {
  it('describes every row of the table, with its method, path and operation id', () => {
    expect(doc.openapi).toBe(OPENAPI_VERSION);
    // The rows, the keyless identification and the keyless OIDC exchange.
    expect(Object.keys(doc.paths)).toHaveLength(ENDPOINT_NAMES.length + 2);
    for (const name of ENDPOINT_NAMES) {
      const row = endpoints[name];
      const op = operation(row.path, row.method.toLowerCase());
      expect(op.operationId).toBe(name);
      expect(op.summary).toBe(row.operation);
      expect(op['x-vaultline-secret']).toBe(row.secret);
      expect(op['x-vaultline-access']).toBe(row.access);
    }
  });

  it('describes the OIDC exchange: keyless, the token in a JSON body, never in the URL', () => {
    const op = operation(OIDC_EXCHANGE_PATH, 'post');
    expect(op).toMatchObject({ operationId: 'oidcExchange', security: [{}] });
    expect(op.parameters).toBeUndefined();
    const body = (op.requestBody as OpenApiObject).content as Record<string, { schema: OpenApiObject }>;
    expect(body['application/json']!.schema).toMatchObject({ required: ['token'] });
  });

  it('declares each path segment as a required parameter, in template order, with its encoding', () => {
    for (const name of ENDPOINT_NAMES) {
      const row = endpoints[name];
      const placeholders = [...row.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      const params = (operation(row.path, row.method.toLowerCase()).parameters ?? []) as OpenApiObject[];
      expect(params.map((p) => p.name)).toEqual(placeholders);
      for (const param of params) {
        const segment = (row.params as Record<string, { description: string }>)[param.name as string]!;
        expect(param).toMatchObject({ in: 'path', required: true });
        expect((param.description as string).toLowerCase()).toContain(segment.description.toLowerCase());
      }
    }
  });

  it('gives id, id-list and item segments schemas that accept what the codec writes and refuse the rest', () => {
    const params = (path: string) =>
      Object.fromEntries(
        (operation(path, 'get').parameters as OpenApiObject[]).map((p) => [p.name, validator(p.schema)]),
      );
    const update = params('/update/item/{id}/{item}');
    expect(update.id!(54)).toBe(true);
    expect(update.id!(0)).toBe(false);
    expect(update.item!('ZGI;czNjcmV0;;Mw;YXBw;;;;MA')).toBe(true);
    expect(update.item!('ZGI;czNjcmV0')).toBe(false);
    // Generic OpenAPI clients percent-encode `;` in path parameters; the segment is never decoded.
    const idsParam = (operation('/read/items/{ids}', 'get').parameters as OpenApiObject[])[0]!;
    expect(idsParam.description).toContain('`%3B` is refused');
    const ids = params('/read/items/{ids}').ids!;
    expect(ids('1;2;30')).toBe(true);
    expect(ids('1,2')).toBe(false);
    expect(ids('')).toBe(false);
    const folder = params('/add/folder/{folder}').folder!;
    expect(folder('dGVhbTswOzA7MDsw')).toBe(true);
    expect(folder('dGVhbQ;MA;MA;MA;MA')).toBe(true);
    expect(folder('dGVhbQ;MA')).toBe(false);
    expect(folder('')).toBe(false);
  });

  it('describes answers in the wire forms servers send: arrays or keyed objects, strings or numbers', () => {
    const items = validator(successSchema('readItems'));
    expect(items([wireItem])).toBe(true);
    expect(items({ 12: wireItem })).toBe(true);
    expect(items([{ ...wireItem, id: 12, folder_id: 3, pw: null }])).toBe(true);
    expect(items([])).toBe(true);
    expect(items([{ label: 'no id' }])).toBe(false);
    expect(items('OK')).toBe(false);
    const found = validator(successSchema('findItems'));
    expect(found([{ ...wireItem, status: 'OK' }])).toBe(true);
    const folders = validator(successSchema('readUserFolders'));
    expect(
      folders({
        3: { id: '3', title: 'Staging', level: '1', access_type: 'ND', parent_id: '0', personal: '0' },
      }),
    ).toBe(true);
    const added = validator(successSchema('addItem'));
    expect(added({ status: 'item added', new_item_id: '54' })).toBe(true);
    expect(added({ status: 'item added' })).toBe(false);
    const files = validator(successSchema('listFiles'));
    expect(files({ 5: { id: '5', name: 'a.pem', type: 'text/plain', extension: 'pem', size: '12' } })).toBe(
      true,
    );
  });

  it('lets deletes answer the text OK as well as JSON', () => {
    for (const name of ['deleteItems', 'deleteFolders'] as const) {
      expect(validator(successSchema(name, 'text/plain'))('OK')).toBe(true);
      const json = validator(successSchema(name));
      expect(json({ status: 'OK' })).toBe(true);
      expect(json({ status: 'deleted' })).toBe(false);
    }
  });

  it('leaves no schema empty: the fast-path checks of the records are dropped, not turned into "anything"', () => {
    const empty: string[] = [];
    const walk = (value: unknown, at: string): void => {
      if (Array.isArray(value)) {
        for (const [i, entry] of value.entries()) walk(entry, `${at}/${i}`);
      } else if (typeof value === 'object' && value !== null) {
        // An empty security requirement is OpenAPI's "no key needed", not a schema.
        if (Object.keys(value).length === 0 && !/\/security\/\d+$/.test(at)) empty.push(at);
        for (const [key, entry] of Object.entries(value)) walk(entry, `${at}/${key}`);
      }
    };
    walk(doc.paths, '#/paths');
    walk(doc.components, '#/components');
    expect(empty).toEqual([]);
  });

  it('answers a download with bytes and a multipart upload with its two fields', () => {
    const download = operation('/read/files/{id}', 'get');
    const ok = (download.responses as Record<string, OpenApiObject>)['200']!;
    expect(Object.keys(ok.content as OpenApiObject)).toEqual(['*/*']);
    const upload = operation('/add/file', 'post');
    expect(upload.requestBody).toMatchObject({
      required: true,
      content: { 'multipart/form-data': { schema: { required: ['item_id', 'file'] } } },
    });
  });

  it('lists every error answer each operation can get, with its body and codes', () => {
    for (const name of ENDPOINT_NAMES) {
      const row = endpoints[name];
      const statuses = Object.keys(operation(row.path, row.method.toLowerCase()).responses as OpenApiObject);
      expect(statuses).toContain('400');
      expect(statuses).toContain('401');
      expect(statuses).toContain('429');
      expect(statuses).toContain('500');
      expect(statuses.includes('409')).toBe(row.access === 'write');
      expect(statuses.includes('413')).toBe(name === 'addFile');
      // Every operation: the database unreachable; the attachment transfers also at their bound.
      expect(statuses.includes('503')).toBe(true);
      // TeamPass's 405s, for keys of the teampass profile.
      expect(statuses).toContain('405');
    }
    const responses = doc.components.responses as Record<string, OpenApiObject>;
    for (const answer of ERROR_ANSWERS) {
      for (const code of answer.codes) expect(VAULT_ERROR_CODES).toContain(code);
      const schema = (responses[answer.name]!.content as Record<string, { schema: unknown }>)[
        'application/json'
      ]!.schema;
      const check = validator(schema);
      expect(check({ err: 'Invalid API key.', code: answer.codes[0] })).toBe(true);
      expect(check({ err: 'TeamPass sends no code' })).toBe(true);
      expect(check({ err: 'x', code: 'no_such_code' })).toBe(false);
      expect(check({ code: answer.codes[0] })).toBe(false);
    }
    expect(responses.TooManyRequests!.headers).toHaveProperty('Retry-After');
    expect(responses.TransfersBusy!.headers).toHaveProperty('Retry-After');
    expect(responses.Unavailable!.headers).toHaveProperty('Retry-After');
  });

  it('takes the key in the query or as a bearer header, and needs none for info/version', () => {
    expect(doc.security).toEqual([{ apiKey: [] }, { bearer: [] }]);
    expect(doc.components.securitySchemes).toMatchObject({
      apiKey: { type: 'apiKey', in: 'query', name: 'apikey' },
      bearer: { type: 'http', scheme: 'bearer' },
    });
    const info = operation(SERVER_INFO_PATH, 'get');
    expect(info.operationId).toBe(SERVER_INFO_OPERATION_ID);
    // No key needed (`{}`); one may be sent.
    expect(info.security).toEqual([{}, { apiKey: [] }, { bearer: [] }]);
    const check = validator({ $ref: '#/components/schemas/ServerInfo' });
    expect(check({ server: 'vaultline', version: '1.2.0', features: ['bearer-auth'] })).toBe(true);
    expect(check({ server: 'teampass', version: '3', features: [] })).toBe(false);
    const answered = validator(
      (info.responses as Record<string, { content: Record<string, { schema: unknown }> }>)['200']!.content[
        'application/json'
      ]!.schema,
    );
    expect(answered({ server: 'vaultline', version: '1.2.0', features: [] })).toBe(true);
    expect(answered({ 'api-version': '2.1.5' })).toBe(true);
    expect(answered({ 'api-version': 2 })).toBe(false);
  });

  it("describes the teampass profile: every difference, the deletes' JSON, the lenient folder values", () => {
    expect(doc.info['x-vaultline-profiles']).toEqual({
      profiles: ['vaultline', 'teampass'],
      default: 'vaultline',
      teampass: TEAMPASS_PROFILE_DIFFERENCES,
    });
    for (const name of ['deleteItems', 'deleteFolders'] as const) {
      const row = endpoints[name];
      expect(operation(row.path, 'get').description).toContain('`{"status":"OK"}`');
    }
    expect(operation(endpoints.updateFolder.path, 'get').description).toContain("add/folder's five");
    const refusal = (doc.components.responses as Record<string, OpenApiObject>).TeamPassProfileRefusal!;
    expect(refusal.description).toContain('Item definition not complete');
  });

  it('describes new_password: TeamPass parameters in order, raw, no secret of the vault', () => {
    const op = operation(endpoints.generatePassword.path, 'get');
    expect(op['x-vaultline-secret']).toBe(false);
    const [rules] = op.parameters as OpenApiObject[];
    expect(rules!.description).toContain(
      '`size`, `secure`, `numerals`, `capitalize`, `ambiguous`, `symbols`, `base64`, `complexity`',
    );
    const check = validator(rules!.schema);
    expect(check('20;1;1;1;0;1;0')).toBe(true);
    expect(check('16')).toBe(true);
    expect(check('a;b')).toBe(false);
    const answer = validator(successSchema('generatePassword'));
    expect(answer({ password: 'x7#Kd' })).toBe(true);
    expect(answer({ password: '' })).toBe(false);
  });

  it('names the server and version when asked, and is a plain JSON value', () => {
    expect(doc.servers).toBeUndefined();
    expect(doc.info.version).toBe('1.0.0');
    const served = createOpenApiDocument({ version: '2.3.4', serverUrl: 'https://vault.example.com' });
    expect(served.info.version).toBe('2.3.4');
    expect(served.servers).toEqual([{ url: 'https://vault.example.com' }]);
    expect(JSON.parse(JSON.stringify(served))).toEqual(served);
  });
});
