/**
 * Upgrades that instances of an older release cannot serve alongside.
 *
 * Migration 9 stores attachments in chunks: an instance of a release before it answers 500 to
 * every download once it ran. Migration 12 binds every item's secrets to their row (sealed again in
 * the sealer's format, with the row as additional data): the releases before it (9d5f489, the
 * previous one, among them) open neither that format nor bound values, and answer 500 "A stored
 * secret has an unknown format." for every item, and reject the attachments this release seals.
 * Nothing the new release does can make an old one read them, so such an upgrade is not rolling:
 * the instances of the older release stop first, then the new release starts (and migrates).
 *
 * A new instance checks it before migrating a PostgreSQL database from before the last such
 * migration ({@link NOT_ROLLING_FROM_VERSION}): a session of another program on the database (an
 * instance of an older release) stops the start with a message that says what to do. Each
 * instance names its sessions with the schema it serves ({@link APPLICATION_NAME}), so that a later
 * release tells its own instances, and those of releases that serve the same schema, from older
 * ones; the releases before this one named none of their sessions. Attachments an old instance
 * still uploads (a blob in `files.content`) are read by the new release all the same (see
 * `store/files.ts`).
 *
 * @module
 */

import type { Queryable } from '@vaultline/store';
import { VaultServerError } from '../errors.ts';
import { MIGRATIONS, MIGRATIONS_TABLE } from './migrations.ts';

/** The first part of the `application_name` of every connection of the server. */
const PROGRAM = 'vaultline-server';

/**
 * The `application_name` of every connection of this release: the program and the schema version
 * it serves (`vaultline-server/12`).
 */
export const APPLICATION_NAME = `${PROGRAM}/${MIGRATIONS.at(-1)!.version}`;

/**
 * The first schema version that instances of the releases before it cannot serve alongside:
 * migration 12 (item secrets bound to their rows; migration 9, attachments in chunks, before it).
 */
export const NOT_ROLLING_FROM_VERSION = 12;

/**
 * Refuses to migrate a PostgreSQL database from before {@link NOT_ROLLING_FROM_VERSION} while
 * another program has a session on it (an instance of an older release, most likely): any session
 * but those of instances that serve that schema or a later one.
 *
 * @param db The database, before its migrations ran.
 * @throws {VaultServerError} Naming the other sessions (program and address) and what to do.
 */
export async function checkNoOlderInstances(db: Queryable): Promise<void> {
  const [table] = await db.query<{ exists: boolean }>('SELECT to_regclass($1) IS NOT NULL AS exists', [
    MIGRATIONS_TABLE,
  ]);
  // An empty database: nothing serves it yet.
  if (!table?.exists) return;
  const [schema] = await db.query<{ version: number | null }>(
    `SELECT max(version) AS version FROM ${MIGRATIONS_TABLE}`,
  );
  const version = Number(schema?.version ?? 0);
  if (version === 0 || version >= NOT_ROLLING_FROM_VERSION) return;
  const others = await db.query<{ application_name: string; address: string | null; sessions: number }>(
    `SELECT application_name, host(client_addr) AS address, count(*)::int AS sessions
       FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid()
        AND backend_type = 'client backend'
        AND CASE WHEN application_name ~ $1 THEN split_part(application_name, '/', 2)::int < $2 ELSE true END
      GROUP BY 1, 2 ORDER BY 1, 2`,
    [`^${PROGRAM}/[0-9]{1,9}$`, NOT_ROLLING_FROM_VERSION],
  );
  if (others.length === 0) return;
  const seen = others
    .map(
      (row) =>
        `${row.sessions} from ${row.application_name || 'an unnamed program'}${row.address ? ` at ${row.address}` : ''}`,
    )
    .join(', ');
  throw new VaultServerError(
    'invalid_request',
    `This release seals secrets and stores attachments in formats the previous release cannot read, and its database is still in use (${seen}). Stop every instance of the previous release (and other sessions on the database), then start this one: it migrates the database once nothing else uses it. Rolling upgrades are not possible across this release.`,
  );
}
