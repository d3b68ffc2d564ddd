/**
 * One HTTP exchange, the transport's only contact with the network: a request out, a status and
 * headers back, and a body read within a byte limit. Two implementations: {@link fetchExchange}
 * over a `fetch` (browsers, and any `fetch` a caller passes) and `node-exchange.ts` over
 * `node:http`/`node:https` (Node, by default). Retries, time limits and 429s are the transport's.
 * Internal: exported by no entry.
 *
 * @module
 */

/** Reads response headers by name, case-insensitively, as `Headers.get` does. */
export interface HeaderLookup {
  /**
   * One header's value.
   *
   * @param name The header's name, in any case.
   * @returns Its value (several joined by `, `), or `null` when absent.
   */
  get(name: string): string | null;
}

/**
 * The platform's `fetch`, looked up when called: passing it (or no `fetch`) to
 * the transport (`createTransport`) leaves the choice of the HTTP client to the transport, and touching it
 * does not load Node's fetch.
 *
 * @param input As for `fetch`.
 * @param init As for `fetch`.
 * @returns As `fetch` does.
 */
export const platformFetch: typeof globalThis.fetch = (input, init) => globalThis.fetch(input, init);

/** What one exchange sends. */
export interface ExchangeRequest {
  /** The HTTP method. */
  readonly method: string;
  /** The URL. */
  readonly url: string;
  /** The request headers. */
  readonly headers: Record<string, string>;
  /** The body, when the operation has one. */
  readonly body?: string | FormData | undefined;
  /** `manual` hands a redirect back as it is; `follow` follows it. */
  readonly redirect: 'follow' | 'manual';
  /** Ends the exchange, headers or body. */
  readonly signal: AbortSignal;
}

/** A body read whole, or the size at which it passed the limit. */
export type BodyRead = { readonly bytes: Uint8Array } | { readonly tooLarge: number };

/** What came back: the status and headers, and the body still to read (or let go of). */
export interface Reply {
  /** The HTTP status. */
  readonly status: number;
  /** The response headers. */
  readonly headers: HeaderLookup;
  /**
   * Reads the body, at most `maxBytes` of it (a longer one is let go of).
   *
   * @param maxBytes The largest body read.
   * @returns The bytes, or the size seen when the limit was passed.
   */
  read(maxBytes: number): Promise<BodyRead>;
  /** Lets go of the body unread, so the connection is freed now. */
  discard(): void;
}

/** Sends one request and resolves with the reply's head; rejects when no answer came. */
export type Exchange = (request: ExchangeRequest) => Promise<Reply>;

/**
 * The exchange over a `fetch`: the platform's in browsers, or one a caller passes.
 *
 * @param fetch The `fetch` to send with.
 * @returns The exchange.
 */
export function fetchExchange(fetch: typeof globalThis.fetch): Exchange {
  return async (request) => {
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body ?? null,
      redirect: request.redirect,
      // Answers hold secrets: a browser must not keep them in its disk cache.
      cache: 'no-store',
      signal: request.signal,
    });
    return {
      status: response.status,
      headers: response.headers,
      read: (maxBytes) => readResponse(response, maxBytes),
      discard: () => {
        response.body?.cancel().catch(() => {});
      },
    };
  };
}

/**
 * Reads a `Response`'s body within the limit: with `arrayBuffer()` when its length is declared (far
 * cheaper than a stream reader; the signal passed to fetch still cuts it off), counted otherwise.
 */
async function readResponse(response: Response, maxBytes: number): Promise<BodyRead> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    return { tooLarge: declared };
  }
  if (!response.body) return { bytes: new Uint8Array(0) };
  if (declared >= 0) return { bytes: new Uint8Array(await response.arrayBuffer()) };
  const reader = response.body.getReader();
  const chunks = new ByteCounter(maxBytes);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!chunks.add(value)) {
        await reader.cancel().catch(() => {});
        return { tooLarge: chunks.total };
      }
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  }
  return { bytes: chunks.bytes() };
}

/** Chunks of a body, counted against a limit. */
export class ByteCounter {
  /** The bytes seen so far. */
  total = 0;
  private readonly chunks: Uint8Array[] = [];
  private readonly maxBytes: number;

  /** @param maxBytes The largest body kept. */
  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /**
   * Keeps a chunk.
   *
   * @param chunk The chunk.
   * @returns Whether the body is still within the limit.
   */
  add(chunk: Uint8Array): boolean {
    this.total += chunk.byteLength;
    if (this.total > this.maxBytes) return false;
    this.chunks.push(chunk);
    return true;
  }

  /** @returns The chunks, joined. */
  bytes(): Uint8Array {
    if (this.chunks.length === 1) return this.chunks[0]!;
    const out = new Uint8Array(this.total);
    let offset = 0;
    for (const chunk of this.chunks) {
      out.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return out;
  }
}
