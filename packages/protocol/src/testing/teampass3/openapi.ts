/**
 * The small OpenAPI document the TeamPass 3 fake serves at `GET /openapi.json` (no token). It is
 * the fake's own: it names TeamPass's operations and security scheme so that a client can tell a
 * TeamPass 3 server by `info.title`, and claims nothing more.
 *
 * @module
 */

const OPERATIONS: ReadonlyArray<readonly [string, string, string, boolean]> = [
  ['/authorize', 'post', 'authorize', false],
  ['/authorizeToken', 'post', 'authorizeToken', false],
  ['/auth/logout', 'post', 'logout', true],
  ['/folder/listFolders', 'get', 'listFolders', true],
  ['/folder/writableFolders', 'get', 'writableFolders', true],
  ['/folder/create', 'post', 'createFolder', true],
  ['/folder/update', 'put', 'updateFolder', true],
  ['/folder/delete', 'delete', 'deleteFolder', true],
  ['/item/get', 'get', 'getItem', true],
  ['/item/inFolders', 'get', 'itemsInFolders', true],
  ['/item/findByUrl', 'get', 'findItemsByUrl', true],
  ['/item/getOtp', 'get', 'getItemOtp', true],
  ['/item/allTags', 'get', 'allTags', true],
  ['/item/create', 'post', 'createItem', true],
  ['/item/update', 'put', 'updateItem', true],
  ['/item/delete', 'delete', 'deleteItem', true],
  ['/misc/refreshExtensionSettings', 'get', 'refreshExtensionSettings', true],
  ['/user/list', 'get', 'listUsers', true],
  ['/openapi.json', 'get', 'openApi', false],
];

/**
 * The document.
 *
 * @param version The TeamPass version the fake reports.
 * @returns A JSON value.
 */
export function fakeOpenApiDocument(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [path, method, operationId, bearer] of OPERATIONS) {
    paths[path] = {
      ...paths[path],
      [method]: {
        operationId,
        ...(bearer ? {} : { security: [] }),
        responses: { default: { description: 'See TeamPass documentation.' } },
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'TeamPass REST API',
      version: '1',
      description: `A test double of TeamPass ${version}'s REST API (Vaultline's fake), not TeamPass's contract.`,
    },
    servers: [{ url: '/api/v1' }, { url: '/api' }],
    security: [{ bearerAuth: [] }],
    paths,
    components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
  };
}
