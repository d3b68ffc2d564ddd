/**
 * The one check of a vault's base URL, for both dialects.
 *
 * @module
 */
import { VaultError } from '../errors.ts';

/**
 * Checks a base URL: `http(s)://host[/path]`, with no query, fragment or credentials (a URL's user
 * and password end up in configs, logs and history; the key and password are passed apart). A URL
 * that already names the API path, or the web app's page (`/index.php`, with its query), is cut
 * back to the base.
 *
 * @param baseUrl The URL as given.
 * @param apiPath The API paths the dialect accepts at the end of the URL (anchored at the end).
 * @returns The base URL without a trailing slash.
 * @throws {VaultError} `invalid_request` for anything else.
 */
export function checkBaseUrl(baseUrl: string, apiPath: RegExp): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new VaultError(
      'invalid_request',
      `Expected the vault's base URL (http:// or https://), received ${JSON.stringify(baseUrl.slice(0, 80))}.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new VaultError(
      'invalid_request',
      `Expected an http:// or https:// base URL, received ${url.protocol}.`,
    );
  // The address a browser shows for the web app (`/index.php?page=items`) names the base too.
  const page = WEB_PAGE.test(url.pathname);
  if (((url.search || url.hash) && !page) || url.username || url.password)
    throw new VaultError(
      'invalid_request',
      'The base URL cannot carry a query, a fragment or credentials: pass the login, password and API key apart.',
    );
  return baseOfPath(`${url.origin}${url.pathname}`, apiPath);
}

/**
 * Checks a base URL as both dialects take it ({@link checkBaseUrl}: no query, fragment or credentials); a URL that
 * already names the API path is cut back to the base.
 *
 * @param baseUrl The URL as given.
 * @returns The base URL without a trailing slash.
 * @throws {VaultError} `invalid_request` for anything else.
 */
export function validateBaseUrl(baseUrl: string): string {
  return checkBaseUrl(baseUrl, /\/api(\/index\.php)?$/);
}

/** The web app's page at the end of a path: `/index.php`, what a browser shows for TeamPass. */
const WEB_PAGE = /\/index\.php\/?$/;

/**
 * Cuts a URL (without query) back to the vault's base: the API path, or the web app's page
 * (`/index.php`, the address a browser shows for TeamPass), and trailing slashes.
 *
 * @param url The URL, without query or fragment.
 * @param apiPath The API paths the dialect accepts at the end of the URL (anchored at the end).
 * @returns The base URL without a trailing slash.
 */
export function baseOfPath(url: string, apiPath: RegExp): string {
  const trimmed = url.replace(/\/+$/, '');
  const withoutApi = trimmed.replace(apiPath, '');
  return withoutApi === trimmed ? trimmed.replace(WEB_PAGE, '').replace(/\/+$/, '') : withoutApi;
}
