/**
 * Upgrades that instances of an older release cannot serve alongside.
 *
 * Migration 9 stores attachments in chunks. An instance of a release before it reads an
 * attachment as one blob in `files.content`: once the migration ran (and rewrote the blobs), it
 * answers 500 to every download, of old attachments and of new ones alike. Nothing the new release
 * does can make the old one read chunks, so such an upgrade is not rolling: the instances of the
 * previous release stop first, then the new release starts (and migrates). A new instance checks
 * it before migrating a database from before migration 9: on PostgreSQL, a session of another
 * program on the database (an instance of the previous release, which names none of its sessions)
 * stops the start with a message that says what to do. Attachments an old instance still uploads
 * meanwhile (a blob in `files.content`) are read by the new release all the same (see
 * `store/files.ts`).
 *
 * @module
 */

import type { Queryable } from '@vaultline/store';
import { VaultServerError } from '../errors.ts';
import { MIGRATIONS_TABLE } from './migrations.ts';

/** The `application_name` of every connection of this release: how it tells its own sessions. */
export const APPLICATION_NAME = 'vaultline-server';

/**
 * The first schema version that instances of the releases before it cannot serve alongside:
 * migration 9 (attachments in chunks).
 */
export const NOT_ROLLING_FROM_VERSION = 9;

/**
 * Refuses to migrate a PostgreSQL database from before {@link NOT_ROLLING_FROM_VERSION} while
 * another program has a session on it (an instance of the previous release, most likely).
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
        AND backend_type = 'client backend' AND application_name <> $1
      GROUP BY 1, 2 ORDER BY 1, 2`,
    [APPLICATION_NAME],
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
    `This release stores attachments in a format the previous release cannot read, and its database is still in use (${seen}). Stop every instance of the previous release (and other sessions on the database), then start this one: it migrates the database once nothing else uses it. Rolling upgrades are not possible across this release.`,
  );
}
