/**
 * Why a request from a browser got no answer. A browser reports a CORS refusal exactly like a
 * server that is down (`TypeError: Failed to fetch`); a second, keyless request in `no-cors` mode
 * tells them apart: the browser hands it back (opaque) when the server answered, and fails when
 * nothing answered. Outside browsers nothing is held to CORS, and nothing is probed.
 *
 * @module
 */

import { type NetworkReason, VaultError } from '../errors.ts';

/** What {@link explainNetworkFailure} found. */
export interface NetworkDiagnosis {
  /** Why no answer arrived. */
  reason: NetworkReason;
  /** The origin the requests came from (`https://vscode.dev`): the one a server must allow by CORS. */
  requestOrigin: string;
  /** The server's origin (`https://vault.example.com`). */
  serverOrigin: string;
}

/** Options of {@link explainNetworkFailure}. */
export interface ExplainOptions {
  /** The `fetch` the client uses. */
  fetch: typeof globalThis.fetch;
  /** The origin requests are sent from; {@link browserOrigin} by default. `undefined`: no browser. */
  requestOrigin: string | undefined;
  /** Time allowed for the probe, in ms. */
  timeoutMs: number;
}

/** Hosts a browser lets an `https:` page reach over plain `http:` (W3C Secure Contexts §3.2). */
const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * The origin a browser sends with requests from this global scope (a page or a worker), as the
 * `Origin` header carries it.
 *
 * @returns The origin, or `undefined` outside browsers (Node has no `globalThis.origin`).
 * @see https://html.spec.whatwg.org/multipage/webappapis.html#dom-origin-dev
 */
export function browserOrigin(): string | undefined {
  const origin: unknown = (globalThis as { origin?: unknown }).origin;
  return typeof origin === 'string' && /^https?:\/\//.test(origin) ? origin : undefined;
}

/**
 * Explains a request that got no answer, when it was sent by a browser to another origin: `cors`
 * when the server answers a keyless `no-cors` request to its origin (so it runs, but does not
 * allow `requestOrigin`), `mixed-content` when an `https:` page called a plain `http:` server
 * the browser blocks, `unreachable` when nothing answers.
 *
 * @param baseUrl The vault's base URL.
 * @param options The fetch, the origin requests come from, and the probe's time limit.
 * @returns The diagnosis, or `undefined` outside browsers and for same-origin requests (no CORS).
 */
export async function explainNetworkFailure(
  baseUrl: string,
  options: ExplainOptions,
): Promise<NetworkDiagnosis | undefined> {
  const { requestOrigin } = options;
  if (requestOrigin === undefined) return undefined;
  const server = new URL(baseUrl);
  if (server.origin === requestOrigin) return undefined;
  const found = (reason: NetworkReason): NetworkDiagnosis => ({
    reason,
    requestOrigin,
    serverOrigin: server.origin,
  });
  if (requestOrigin.startsWith('https:') && server.protocol === 'http:' && !LOOPBACK.test(server.hostname))
    return found('mixed-content');
  try {
    // The origin's root: no path of the API, no key. Any answer at all, even a 404, proves it runs.
    await options.fetch(`${server.origin}/`, {
      method: 'GET',
      mode: 'no-cors',
      credentials: 'omit',
      cache: 'no-store',
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    return found('cors');
  } catch {
    return found('unreachable');
  }
}

/**
 * The same `network` error with the diagnosis in its `reason` and `requestOrigin`, and a message
 * that says it.
 *
 * @param error A `network` error.
 * @param diagnosis What {@link explainNetworkFailure} found.
 * @returns The explained error.
 */
export function withNetworkReason(error: VaultError, diagnosis: NetworkDiagnosis): VaultError {
  const where = error.endpoint ?? 'request';
  const { requestOrigin, serverOrigin } = diagnosis;
  const message =
    diagnosis.reason === 'cors'
      ? `${where}: the vault at ${serverOrigin} answers, but does not allow requests from ${requestOrigin} (CORS).`
      : diagnosis.reason === 'mixed-content'
        ? `${where}: the browser blocks plain http:// requests to ${serverOrigin} from ${requestOrigin}; the vault needs https://.`
        : error.message;
  return new VaultError('network', message, {
    endpoint: error.endpoint,
    url: error.url,
    reason: diagnosis.reason,
    requestOrigin,
    cause: error,
  });
}
