/**
 * How a Vaultline server identifies itself, so that clients pick the right strategy once (key in a
 * header, full-text search, file endpoints) instead of apps branching on "is this TeamPass".
 *
 * `GET {base}/api/index.php/info/version` needs no key and carries no vault data. A Vaultline
 * server answers {@link ServerInfo}; any other answer (TeamPass answers with its own error or
 * version text) means a TeamPass-compatible server with TeamPass's limits.
 *
 * @module
 */

import * as v from 'valibot';

/** The path of the identification request, after `/api/index.php`. */
export const SERVER_INFO_PATH = '/info/version';

/** The header that carries the API key when it does not travel in the URL. */
export const KEY_HEADER = 'authorization';

/**
 * What a Vaultline server can do beyond the legacy API:
 * - `bearer-auth`: accepts `Authorization: Bearer <key>`;
 * - `query-key`: still accepts `?apikey=` (a server may refuse keys in URLs);
 * - `files`: implements add/file, read/listfiles and read/files;
 * - `unicode-search`: find/item takes any text (percent-encoded UTF-8) as its query;
 * - `word-search`: find/item finds the items where every white-space-separated word of the query,
 *   folded with `foldLabel`, is in the label, login, URL or a folder title of the item's path
 *   (instead of the labels that contain the query whole);
 * - `four-byte-text`: stores characters outside the BMP (emoji) as sent.
 */
export const SERVER_FEATURES = [
  'bearer-auth',
  'query-key',
  'files',
  'unicode-search',
  'word-search',
  'four-byte-text',
  'otp',
] as const;

/** One feature of {@link SERVER_FEATURES}. */
export type ServerFeature = (typeof SERVER_FEATURES)[number];

/** The identification answer of a Vaultline server. */
export const ServerInfoSchema = v.object({
  /** Always `vaultline`. */
  server: v.literal('vaultline'),
  /** The server's version. */
  version: v.string(),
  /** What it supports; unknown names are kept, so newer servers stay readable. */
  features: v.array(v.string()),
  /** The most results find/item returns; 1000 when absent. */
  maxResults: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  /**
   * The most ids one call takes in an id list (read/items, read/folder, delete/item,
   * delete/folder, find/item's folders); 1000 when absent (what every Vaultline server enforced
   * before it said so).
   */
  maxIds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
  /**
   * Asked with a key: the login the key acts as, where it acts as one (a key of a user; a machine
   * key of a server in front of TeamPass 3, its account's login). Absent from the keyless answer.
   */
  login: v.optional(v.string()),
});

/** The identification answer of a Vaultline server. */
export type ServerInfo = v.InferOutput<typeof ServerInfoSchema>;
