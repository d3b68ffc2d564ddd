/**
 * One API request as the API pipeline sees it, whichever way it arrived (straight from `node:http`
 * or through the Hono app), and the answer it gets. No framework type appears here: the pipeline
 * is plain functions over these.
 *
 * @module
 */

/** The request. */
export interface ApiRequest {
  /** `GET`, `POST`, … as sent. */
  readonly method: string;
  /** The raw request target (path and query), never percent-decoded nor normalised. */
  readonly target: string;
  /**
   * A request header.
   *
   * @param name The header's name, in lower case.
   */
  header(name: string): string | undefined;
  /** The socket's peer address; `undefined` without a socket (`app.request()` in tests). */
  readonly socketAddress: string | undefined;
  /** The request as a fetch `Request`, built only when a handler reads the body (add/file). */
  readonly body: () => Request;
}

/** The answer. */
export interface ApiAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array;
}
