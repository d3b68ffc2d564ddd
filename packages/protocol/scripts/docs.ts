/**
 * The documents derived from the endpoint table: the OpenAPI document (`docs/openapi.json`) and the
 * endpoint lists of the root README and `docs/api.md`, written between two marker comments.
 * `generate-docs.ts` writes them; `test/docs.test.ts` fails when a checked-in copy differs.
 *
 * @module
 */

import { dirname, relative } from 'node:path/posix';
import { fileURLToPath } from 'node:url';
import { ENDPOINT_NAMES, endpoints } from '../src/legacy/endpoints.ts';
import { API_BASE_PATH, OPENAPI_DOCUMENT_PATH } from '../src/legacy/openapi.ts';
import { TEAMPASS_PROFILE_DIFFERENCES } from '../src/legacy/profiles.ts';
import { SERVER_INFO_PATH } from '../src/legacy/server-info.ts';

/** The repository's root. */
export const REPO_ROOT: string = fileURLToPath(new URL('../../../', import.meta.url));

/** The checked-in OpenAPI document, relative to the root. */
export const OPENAPI_FILE = 'docs/openapi.json';

/** The files whose endpoint list is generated, relative to the root. */
export const LIST_FILES: readonly string[] = ['README.md', 'docs/api.md'];

/** The comment that opens a generated endpoint list. */
export const LIST_START =
  '<!-- endpoints:start (generated from packages/protocol/src/legacy/endpoints.ts: pnpm --filter @vaultline/protocol docs:generate) -->';

/** The comment that closes it. */
export const LIST_END = '<!-- endpoints:end -->';

/**
 * The endpoint list as Markdown: one row per operation of the table, then the keyless requests.
 *
 * @param openapiLink The link to `docs/openapi.json` from the file that shows the list.
 * @returns The list, without the markers.
 */
export function renderEndpointList(openapiLink: string): string {
  const lines = [
    '| operation | request | answer holds secrets | what it does |',
    '|---|---|---|---|',
    ...ENDPOINT_NAMES.map((name) => {
      const row = endpoints[name];
      return `| \`${row.operation}\` | \`${row.method} ${API_BASE_PATH}${row.path}\` | ${row.secret ? 'yes' : '—'} | ${row.summary} |`;
    }),
    `| \`info/version\` | \`GET ${API_BASE_PATH}${SERVER_INFO_PATH}\` (no key) | — | How a Vaultline server identifies itself: name, version, features (asked with a key of the \`teampass\` profile: TeamPass's \`api-version\`). |`,
    '',
    `Every operation takes the key as \`?apikey=<key>\` or as \`Authorization: Bearer <key>\`. The whole API as an OpenAPI 3.1 document, generated from the same table: [\`docs/openapi.json\`](${openapiLink}), served by the vault server at \`GET ${OPENAPI_DOCUMENT_PATH}\` (no key).`,
  ];
  return lines.join('\n');
}

/**
 * Replaces the generated list between the markers of a Markdown file.
 *
 * @param markdown The file's text.
 * @param file The file's name, for the error.
 * @returns The text with the current list.
 * @throws {Error} When the file lacks the markers.
 */
export function withEndpointList(markdown: string, file: string): string {
  const start = markdown.indexOf(LIST_START);
  const end = markdown.indexOf(LIST_END);
  if (start === -1 || end < start) throw new Error(`${file} has no "${LIST_START}" … "${LIST_END}" block.`);
  const list = renderEndpointList(relative(dirname(file), OPENAPI_FILE));
  return `${markdown.slice(0, start + LIST_START.length)}\n${list}\n${markdown.slice(end)}`;
}

/** The file whose profile table is generated, relative to the root. */
export const PROFILE_FILE = 'docs/api.md';

/** The comment that opens the generated table of the teampass profile's differences. */
export const PROFILES_START =
  '<!-- profiles:start (generated from packages/protocol/src/legacy/profiles.ts: pnpm --filter @vaultline/protocol docs:generate) -->';

/** The comment that closes it. */
export const PROFILES_END = '<!-- profiles:end -->';

/**
 * The differences of the `teampass` profile as a Markdown table.
 *
 * @returns The table, without the markers.
 */
export function renderProfileTable(): string {
  return [
    '| | a key of the default profile (`vaultline`) | a key of the `teampass` profile |',
    '|---|---|---|',
    ...TEAMPASS_PROFILE_DIFFERENCES.map((d) => `| ${d.topic} | ${d.vaultline} | ${d.teampass} |`),
  ].join('\n');
}

/**
 * Replaces the generated profile table between its markers.
 *
 * @param markdown The file's text.
 * @param file The file's name, for the error.
 * @returns The text with the current table.
 * @throws {Error} When the file lacks the markers.
 */
export function withProfileTable(markdown: string, file: string): string {
  const start = markdown.indexOf(PROFILES_START);
  const end = markdown.indexOf(PROFILES_END);
  if (start === -1 || end < start)
    throw new Error(`${file} has no "${PROFILES_START}" … "${PROFILES_END}" block.`);
  return `${markdown.slice(0, start + PROFILES_START.length)}\n${renderProfileTable()}\n${markdown.slice(end)}`;
}
