/**
 * What the TeamPass 2 replay fake answers with: TeamPass 2's error table as bodies and statuses,
 * the bodies it sends that are not JSON, and the small helpers that build an answer.
 *
 * @see ../../../../../docs/teampass.md
 * @module
 */

import { TEAMPASS2_ERRORS, type TeamPass2Answer, type TeamPass2Error } from '../../legacy/teampass2.ts';

/** One answer of the emulation: status, body and extra headers. */
export interface Answer {
  status: number;
  body: string | Buffer;
  headers?: Record<string, string>;
}

/** An answer of {@link TEAMPASS2_ERRORS} as this server sends it: the body as TeamPass writes it. */
function written(answer: TeamPass2Answer): { status: number; body: string } {
  return { status: answer.status, body: JSON.stringify(answer.body) };
}

/**
 * TeamPass 2's error table (docs/teampass.md, the core's `TEAMPASS2_ERRORS`), as bodies and
 * statuses; `<key>` is replaced by the key sent.
 */
export const ERROR_TABLE = {
  ...(Object.fromEntries(
    Object.entries(TEAMPASS2_ERRORS).map(([name, answer]) => [name, written(answer)]),
  ) as Record<TeamPass2Error, { status: number; body: string }>),
  wrongKey: { status: 405, body: '{"err":"This api_key <key> doesn\'t exist","code":"API_KEY_NOT_FOUND"}' },
  unknownObjectEmpty: { status: 200, body: '' },
} as const satisfies Record<string, { status: number; body: string }>;

/** Bodies that are not JSON, sent with HTTP 200 and a JSON content type. */
export const NON_JSON_BODIES = {
  sql:
    "Error: You have an error in your SQL syntax; check the manual that corresponds to your MariaDB server version for the right syntax to use near ') AND i.inactif = 0' at line 1 " +
    'def5020012ab8f9c3e4d5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3',
  empty: '',
  html: '<br />\n<b>Fatal error</b>:  Uncaught Error: Call to a member function fetch() on bool in /var/www/html/teampass/api/functions.php:412\nStack trace:\n#0 {main}\n  thrown in <b>/var/www/html/teampass/api/functions.php</b> on line <b>412</b><br />',
} as const;

/** A JSON answer. */
export const json = (value: unknown, status = 200): Answer => ({ status, body: JSON.stringify(value) });

/** An answer of {@link ERROR_TABLE}. */
export const table = (row: { status: number; body: string }): Answer => ({
  status: row.status,
  body: row.body,
});

/** The wrong-key answer, which echoes the key sent. */
export const wrongKey = (key: string): Answer => ({
  status: 405,
  body: ERROR_TABLE.wrongKey.body.replace('<key>', key),
});
