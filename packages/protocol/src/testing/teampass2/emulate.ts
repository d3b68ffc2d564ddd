/**
 * How the replay fake routes a request as TeamPass 2's `api/index.php` does: the raw URI matched
 * with `apikey` first and never percent-decoded, the key checked, then the operation's handler.
 *
 * @module
 */

import { type Answer, ERROR_TABLE, table, wrongKey } from './answers.ts';
import { type Call, FILE_ROUTES, HANDLERS } from './handlers.ts';
import type { Emulation } from './state.ts';
import type { SeenRequest } from './types.ts';

/** TeamPass's `new_password/<params>?apikey=`: its verb has no object, so ROUTE does not take it. */
const NEW_PASSWORD = /^\/api(?:\/index\.php)?\/new_password(?:\/([^?]*))?\?apikey=([^&]*)(?:&.*)?$/;

const ROUTE = /^\/api(?:\/index\.php)?\/([a-z]+)\/([a-z]+)(?:\/([^?]*))?\?apikey=([^&]*)(?:&.*)?$/;

/** The verbs TeamPass knows: an unknown object of one of them answers an empty body. */
const VERBS = ['add', 'update', 'delete', 'read', 'find'];

/** The client's keyless identification request (a script's `info/version` carries its key). */
export function isIdentification(request: SeenRequest): boolean {
  return (
    /^\/api(?:\/index\.php)?\/info\/version(?:\?|$)/.test(request.url) && !/[?&]apikey=/.test(request.url)
  );
}

/** A `new_password` request: its key is percent-decoded as is (a malformed escape throws). */
function newPasswordCall(emulation: Emulation, request: SeenRequest): Call | Answer | undefined {
  const generate = NEW_PASSWORD.exec(request.url);
  if (!generate) return undefined;
  if (decodeURIComponent(generate[2] ?? '') !== emulation.options.apiKey) return wrongKey(generate[2] ?? '');
  return { request, route: 'new_password', parts: generate[1] ? [generate[1]] : [] };
}

/** A `verb/object/...` request, or the answer refusing its URL or its key. */
function routedCall(emulation: Emulation, request: SeenRequest): Call | Answer {
  const match = ROUTE.exec(request.url);
  if (!match) return table(ERROR_TABLE.urlFormat);
  const [, verb = '', object = '', args = '', key = ''] = match;
  let sentKey = key;
  try {
    sentKey = decodeURIComponent(key);
  } catch {
    // PHP leaves malformed escapes as they are.
  }
  if (sentKey !== emulation.options.apiKey) return wrongKey(sentKey);
  return { request, route: `${verb}/${object}`, parts: args === '' ? [] : args.split('/') };
}

/**
 * Answers one request as TeamPass 2.1.27.36 would.
 *
 * @param emulation The vault and the server's switches.
 * @param request The request as seen.
 * @returns The answer.
 */
export async function emulate(emulation: Emulation, request: SeenRequest): Promise<Answer> {
  if (emulation.options.apiDisabled) return table(ERROR_TABLE.apiDisabled);
  if (!/[?&]apikey=/.test(request.url)) return table(ERROR_TABLE.apiKeyMissing);
  const call = newPasswordCall(emulation, request) ?? routedCall(emulation, request);
  if (!('route' in call)) return call;
  if (!emulation.server.fileEndpoints && FILE_ROUTES.has(call.route)) return table(ERROR_TABLE.noResults);
  const handler = HANDLERS[call.route];
  if (handler) return handler(emulation, call);
  const verb = call.route.split('/')[0] ?? '';
  return table(VERBS.includes(verb) ? ERROR_TABLE.unknownObjectEmpty : ERROR_TABLE.methodNotAuthorized);
}
