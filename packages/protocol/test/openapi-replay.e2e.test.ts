import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ENDPOINT_NAMES, type EndpointName, endpoints } from '../src/legacy/endpoints.ts';
import { API_BASE_PATH, createOpenApiDocument, type OpenApiObject } from '../src/legacy/openapi.ts';
import { type ReplayServer, startReplayServer } from '../src/testing/teampass-replay-server.ts';
import { createWireClient } from '../src/vault/wire-client.ts';

const KEY = 'openapiReplayKey0123456789abcdef';
const doc = createOpenApiDocument();

interface Exchange {
  name: EndpointName;
  status: number;
  text: string;
}

/** The row a request path belongs to: `/api/index.php/<verb>/<object>/…`. */
function rowOf(url: string): EndpointName {
  const [verb, object] = new URL(url).pathname.slice(API_BASE_PATH.length + 1).split('/');
  // new_password has no object: its second segment is its rules.
  const name = ENDPOINT_NAMES.find(
    (n) => endpoints[n].path.startsWith(`/${verb}/${object}`) || endpoints[n].path.startsWith(`/${verb}/{`),
  );
  if (!name) throw new Error(`no row for ${url}`);
  return name;
}

/** The document's schema of a row's success answer in a media type, compiled with its named schemas. */
const compiled = new Map<string, ((body: unknown) => boolean) | undefined>();
function successCheck(name: EndpointName, media: string): ((body: unknown) => boolean) | undefined {
  const key = `${name} ${media}`;
  if (!compiled.has(key)) compiled.set(key, compileSuccessCheck(name, media));
  return compiled.get(key);
}

function compileSuccessCheck(name: EndpointName, media: string): ((body: unknown) => boolean) | undefined {
  const row = endpoints[name];
  const op = doc.paths[`${API_BASE_PATH}${row.path}`]![row.method.toLowerCase()] as OpenApiObject;
  const ok = (op.responses as Record<string, { content: Record<string, { schema: OpenApiObject }> }>)['200']!;
  const schema = ok.content[media]?.schema;
  if (!schema) return undefined;
  const check = new Ajv2020({ strict: false }).compile({ ...schema, components: doc.components });
  return (body) => check(body) === true;
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

let server: ReplayServer;
let seen: Exchange[] = [];

/** A fetch that keeps a copy of every answer, as the server sent it. */
const recordingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const url = input instanceof Request ? input.url : String(input);
  // The keyless identification is no row of the table (the OpenAPI document describes it apart).
  if (url.endsWith('/info/version')) return response;
  seen.push({
    name: rowOf(url),
    status: response.status,
    text: await response.clone().text(),
  });
  return response;
};

beforeAll(async () => {
  server = await startReplayServer({ apiKey: KEY });
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
  seen = [];
});

/** Runs every operation of the table once through the client. */
async function everyOperation(): Promise<void> {
  const vault = createWireClient({
    baseUrl: server.url,
    auth: KEY,
    fetch: recordingFetch,
    retry: { retries: 0 },
  });
  const folder = await vault.addFolder({ folder: { title: 'OpenAPI', parentId: 1 } });
  await vault.updateFolder({
    id: folder.id,
    folder: { title: 'OpenAPI 2', complexityLevel: 25, renewalPeriod: 0 },
  });
  const item = await vault.addItem({
    item: { label: 'openapi item', password: 'pw;/+=', folderId: folder.id },
  });
  await vault.updateItem({
    id: item.id,
    item: { label: 'openapi item 2', password: 'pw2', folderId: folder.id },
  });
  await vault.readItems({ ids: [item.id, 10] });
  await vault.readFolders({ ids: [1, 2, folder.id] });
  await vault.readUserItems({ login: 'alice' });
  await vault.readUserFolders({ login: 'alice' });
  await vault.findItems({ folderIds: [1, 2, folder.id], query: 'openapi' });
  await vault.addFile({ itemId: item.id, file: new Uint8Array([1, 2, 3]), fileName: 'a.txt' });
  const [file] = await vault.listFiles({ itemId: item.id });
  await vault.downloadFile({ id: file!.id });
  await vault.deleteItems({ ids: [item.id] });
  await vault.deleteFolders({ ids: [folder.id] });
  await vault.generatePassword({ rules: { length: 12 } });
}

describe('the OpenAPI document against a TeamPass replay', () => {
  it.each([
    ['teampass', 'json'],
    ['objects', 'text'],
    ['arrays', 'json'],
  ] as const)('describes every success answer (collections as %s, deletes as %s)', async (shape, deletes) => {
    server.collectionShape = shape;
    server.deleteBody = deletes;
    await everyOperation();
    // read/otp is the Vaultline server's alone (TeamPass 2 has no one-time codes).
    expect(new Set(seen.map((exchange) => exchange.name))).toEqual(
      new Set(ENDPOINT_NAMES.filter((name) => name !== 'readOtp')),
    );
    for (const exchange of seen) {
      expect(exchange.status, exchange.name).toBe(200);
      if (endpoints[exchange.name].response === 'binary') continue;
      // The replay labels every answer JSON, as TeamPass's PHP does; the bare `OK` is text all the same.
      const json = parsesAsJson(exchange.text);
      const media = json ? 'application/json' : 'text/plain';
      const check = successCheck(exchange.name, media);
      expect(check, `${exchange.name} has no ${media} answer in the document`).toBeDefined();
      const body: unknown = json ? JSON.parse(exchange.text) : exchange.text;
      expect(check!(body), `${exchange.name} answered ${exchange.text.slice(0, 200)}`).toBe(true);
    }
  });

  it('would notice an answer the document does not describe', async () => {
    const check = successCheck('addItem', 'application/json')!;
    expect(check({ status: 'item added', new_item_id: '54' })).toBe(true);
    expect(check({ status: 'item added', new_item_id: 'fifty-four' })).toBe(false);
    expect(successCheck('readItems', 'text/plain')).toBeUndefined();
  });
});
