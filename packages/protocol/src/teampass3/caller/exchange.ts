/**
 * One HTTP exchange of the TeamPass 3 caller over ofetch: the request sent with a time limit and
 * no redirect followed, the answer read up to a byte limit.
 *
 * @module
 */

import type { createFetch } from 'ofetch';
import { FetchError } from 'ofetch';

import type { Received } from './types.ts';

const utf8 = /* @__PURE__ */ new TextDecoder();

/** Parameters as a query string: booleans as `1`/`0`, absent values left out. */
export function toQuery(params: unknown): string {
  const search = new URLSearchParams();
  if (typeof params === 'object' && params !== null) {
    for (const [key, value] of Object.entries(params)) {
      if (value === undefined || value === null) continue;
      search.append(key, typeof value === 'boolean' ? (value ? '1' : '0') : String(value));
    }
  }
  return search.toString();
}

/** Sends one request and reads its answer. */
export async function exchange(
  $fetch: ReturnType<typeof createFetch>,
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number,
  maxBytes: number,
  signal: AbortSignal | undefined,
): Promise<Received> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await $fetch.raw(url, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
      responseType: 'stream',
      retry: false,
      redirect: 'manual',
      ignoreResponseError: true,
      signal: combined,
    });
  } catch (error) {
    if (error instanceof FetchError && error.response) response = error.response;
    else throw error;
  }
  const text = await readText(response, maxBytes);
  return {
    status: response.status,
    contentType: (response.headers.get('content-type') ?? '').toLowerCase(),
    total: response.headers.get('x-total-count'),
    retryAfter: response.headers.get('retry-after'),
    location: response.headers.get('location'),
    text,
  };
}

/** Thrown when an answer is larger than allowed. */
export class TooLargeError extends Error {
  override name = 'TooLargeError';
}

async function readText(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new TooLargeError(String(declared));
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new TooLargeError(String(total));
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return utf8.decode(bytes);
}
