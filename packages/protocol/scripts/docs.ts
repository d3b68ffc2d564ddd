/**
 * The documents derived from the tables: the OpenAPI document (`docs/openapi.json`), and blocks of
 * Markdown written between two marker comments ({@link GENERATED_BLOCKS}): the endpoint lists of
 * the root README and `docs/api.md`, the teampass profile's differences, TeamPass 3's table in its
 * README, and the domain methods of each operation in this package's README. `generate-docs.ts`
 * writes them; `test/docs.test.ts` fails when a checked-in copy differs.
 *
 * @module
 */

import { dirname, relative } from 'node:path/posix';
import { fileURLToPath } from 'node:url';
import { ENDPOINT_NAMES, endpoints } from '../src/legacy/endpoints.ts';
import { API_BASE_PATH, OPENAPI_DOCUMENT_PATH } from '../src/legacy/openapi.ts';
import { TEAMPASS_PROFILE_DIFFERENCES } from '../src/legacy/profiles.ts';
import { SERVER_INFO_PATH } from '../src/legacy/server-info.ts';
import { TEAMPASS3_ENDPOINT_NAMES, teampass3Endpoints } from '../src/teampass3/endpoints.ts';
import { DOMAIN_METHODS } from '../src/vault/operations.ts';

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
 * Replaces what stands between two markers of a Markdown file.
 *
 * @param markdown The file's text.
 * @param file The file's name, for the error.
 * @param markers The comments that open and close the block.
 * @param body What goes between them.
 * @returns The text with the block replaced.
 * @throws {Error} When the file lacks the markers.
 */
function withBlock(
  markdown: string,
  file: string,
  [open, close]: readonly [string, string],
  body: string,
): string {
  const start = markdown.indexOf(open);
  const end = markdown.indexOf(close);
  if (start === -1 || end < start) throw new Error(`${file} has no "${open}" … "${close}" block.`);
  return `${markdown.slice(0, start + open.length)}\n${body}\n${markdown.slice(end)}`;
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
  return withBlock(
    markdown,
    file,
    [LIST_START, LIST_END],
    renderEndpointList(relative(dirname(file), OPENAPI_FILE)),
  );
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
  return withBlock(markdown, file, [PROFILES_START, PROFILES_END], renderProfileTable());
}

/** The README that holds TeamPass 3's table, relative to the root. */
export const TEAMPASS3_FILE = 'packages/protocol/src/teampass3/README.md';

/** The README that holds the domain methods of each operation, relative to the root. */
export const DOMAIN_FILE = 'packages/protocol/README.md';

/** The comments around a generated block named `name`, made from `source`. */
function markersOf(name: string, source: string): readonly [string, string] {
  return [
    `<!-- ${name}:start (generated from ${source}: pnpm --filter @vaultline/protocol docs:generate) -->`,
    `<!-- ${name}:end -->`,
  ];
}

/**
 * TeamPass 3's table as Markdown: one row per operation, every field but the schemas.
 *
 * @returns The table, without the markers.
 */
export function renderTeamPass3Table(): string {
  return [
    '| row | request | params | auth | permission | access | secret | pages | summary |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...TEAMPASS3_ENDPOINT_NAMES.map((name) => {
      const row = teampass3Endpoints[name];
      const pages = row.pagination === undefined ? '–' : (row.pagination.maxLimit ?? 'root level');
      return `| \`${name}\` | ${row.method} \`${row.path}\` | ${row.params} | ${row.auth === 'bearer' ? 'JWT' : '–'} | ${row.permission ?? '–'} | ${row.access} | ${row.secret ? 'yes' : 'no'} | ${typeof pages === 'number' ? `≤ ${pages}` : pages} | ${row.summary} |`;
    }),
  ].join('\n');
}

/**
 * Which domain methods send each operation, as Markdown.
 *
 * @returns The table, without the markers.
 */
export function renderDomainTable(): string {
  return [
    '| operation | wire method | sent by |',
    '| --- | --- | --- |',
    ...ENDPOINT_NAMES.map((name) => {
      const methods: readonly string[] = DOMAIN_METHODS[name];
      const by =
        methods.length === 0
          ? `its wire name only: \`wireOf(vault).${name}\``
          : methods.map((method) => `\`vault.${method}\``).join(', ');
      return `| \`${endpoints[name].operation}\` | \`${name}\` | ${by} |`;
    }),
  ].join('\n');
}

/** A generated block of a Markdown file. */
export interface GeneratedBlock {
  /** The file, relative to the root. */
  readonly file: string;
  /** What it is, for messages. */
  readonly what: string;
  /** The text with the block as the tables make it now. */
  apply(markdown: string): string;
}

/** Every block of Markdown the tables generate. */
export const GENERATED_BLOCKS: readonly GeneratedBlock[] = [
  ...LIST_FILES.map((file) => ({
    file,
    what: 'the endpoint list',
    apply: (markdown: string) => withEndpointList(markdown, file),
  })),
  {
    file: PROFILE_FILE,
    what: 'the profile table',
    apply: (markdown) => withProfileTable(markdown, PROFILE_FILE),
  },
  {
    file: TEAMPASS3_FILE,
    what: "TeamPass 3's table",
    apply: (markdown) =>
      withBlock(
        markdown,
        TEAMPASS3_FILE,
        markersOf('teampass3-endpoints', 'packages/protocol/src/teampass3/endpoints.ts'),
        renderTeamPass3Table(),
      ),
  },
  {
    file: DOMAIN_FILE,
    what: 'the domain methods of each operation',
    apply: (markdown) =>
      withBlock(
        markdown,
        DOMAIN_FILE,
        markersOf('domain-methods', 'packages/protocol/src/vault/operations.ts'),
        renderDomainTable(),
      ),
  },
];
