/**
 * Node's fetch held to a browser's CORS rule, for tests of the core as a browser runs it (vitest
 * runs no browser; the extension's web check runs the same code in Chromium).
 */

/**
 * A fetch for a page of `origin`: a cross-origin answer without `Access-Control-Allow-Origin` for
 * the page is refused as browsers do (`TypeError: Failed to fetch`) after the request reached the
 * server (a simple GET is sent; only its answer is hidden), and a `no-cors` request that got an
 * answer resolves with an empty (opaque) response.
 *
 * @param origin The page's origin.
 * @returns The fetch.
 */
export function browserFetch(origin: string): typeof fetch {
  return async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init.headers);
    headers.set('origin', origin);
    const response = await fetch(url, { ...init, headers });
    if (url.origin === origin) return response;
    if (init.mode === 'no-cors') {
      await response.body?.cancel();
      return new Response(null, { status: 200 });
    }
    const allowed = response.headers.get('access-control-allow-origin');
    if (allowed === origin || allowed === '*') return response;
    await response.body?.cancel();
    throw new TypeError('Failed to fetch');
  };
}
