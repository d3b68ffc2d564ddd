/**
 * Which URLs a trust policy may trust: `https://` only, except loopback addresses (a local issuer in
 * tests and development), and no credentials, query or fragment.
 *
 * @module
 */

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Checks an issuer's URL, or a key set's.
 *
 * @param text The URL.
 * @param what What it is, for the message (`--issuer`).
 * @returns The URL, as given.
 * @throws {Error} For a URL that is not `https://` (nor loopback `http://`).
 */
export function checkIssuerUrl(text: string, what: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`Expected ${what} as an https:// URL, received ${JSON.stringify(text.slice(0, 80))}.`);
  }
  const loopback = LOOPBACK.has(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
  if (!(url.protocol === 'https:' || (url.protocol === 'http:' && loopback)))
    throw new Error(
      `Expected ${what} as an https:// URL (http:// only for a loopback address), received ${url.protocol}//${url.host}.`,
    );
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '')
    throw new Error(`Expected ${what} without credentials, query or fragment.`);
  return text;
}
