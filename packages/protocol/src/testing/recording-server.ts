/**
 * A local HTTP server on 127.0.0.1 that is no vault: it answers every request alike (a web app's
 * login page, a 404, a proxy's refusal, a 503, or a dropped connection) and records every URL it
 * received, so that a test can check that no request to a server that did not identify itself
 * carried a key or a token in its URL.
 *
 * @module
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * How the server answers: `page` 200 with a web app's HTML login page (what TeamPass 3 answers
 * under `/index.php/…`), `page-404` a 404 page, `json-404` a JSON 404 that is no TeamPass answer,
 * `proxy-401` a proxy's sign-in page, `busy` 503, `drop` the connection closed without an answer.
 */
export type RecordingMode = 'page' | 'page-404' | 'json-404' | 'proxy-401' | 'busy' | 'drop';

/** Every {@link RecordingMode}. */
export const RECORDING_MODES: readonly RecordingMode[] = [
  'page',
  'page-404',
  'json-404',
  'proxy-401',
  'busy',
  'drop',
];

/** The running server. */
export interface RecordingServer {
  /** Its base URL, e.g. `http://127.0.0.1:40123`. */
  readonly url: string;
  /** How it answers; change it between requests. */
  mode: RecordingMode;
  /** Every request target received (path and query, as sent), in order. */
  readonly urls: string[];
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

const LOGIN_PAGE =
  '<!DOCTYPE html><html><head><title>Teampass</title></head><body><form id="form_login"></form></body></html>';

/**
 * Starts the server on an OS-picked port.
 *
 * @param mode How it answers at first. Default `page`.
 * @returns The running server.
 */
export async function startRecordingServer(mode: RecordingMode = 'page'): Promise<RecordingServer> {
  const urls: string[] = [];
  const state = {
    url: '',
    mode,
    urls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((request, response) => {
    urls.push(request.url ?? '');
    request.resume();
    const send = (status: number, type: string, body: string) => {
      response.writeHead(status, { 'content-type': type });
      response.end(body);
    };
    switch (state.mode) {
      case 'page':
        return send(200, 'text/html; charset=UTF-8', LOGIN_PAGE);
      case 'page-404':
        return send(404, 'text/html', '<html><body><h1>Not Found</h1></body></html>');
      case 'json-404':
        return send(404, 'application/json', '{"message":"Not Found"}');
      case 'proxy-401':
        return send(401, 'text/html', '<html>Basic realm="intranet"</html>');
      case 'busy':
        return send(503, 'text/html', '<html>Service Unavailable</html>');
      case 'drop':
        request.socket.destroy();
        return;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
