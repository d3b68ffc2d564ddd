import type { Queryable } from '@vaultline/store';

/** What the import map records: a source's folder, item or attachment. */
export type ImportedKind = 'folder' | 'item' | 'file';

/**
 * What each thing of a source became in this vault, still present: source id → id here. A mapped
 * thing deleted here since is left out, so a re-run imports it again.
 *
 * @param db The database.
 * @param source The source, as the import names it (its URL, never its key).
 * @param kind Which kind.
 * @returns The map.
 */
export async function importedIds(
  db: Queryable,
  source: string,
  kind: ImportedKind,
): Promise<Map<string, number>> {
  const table = kind === 'folder' ? 'folders' : kind === 'item' ? 'items' : 'files';
  const rows = await db.query<{ source_id: string; target_id: number }>(
    `SELECT m.source_id, m.target_id FROM import_map m JOIN ${table} t ON t.id = m.target_id
      WHERE m.source = $1 AND m.kind = $2`,
    [source, kind],
  );
  return new Map(rows.map((row) => [row.source_id, Number(row.target_id)]));
}

/**
 * Records what things of a source became here (replacing what a thing deleted since became).
 *
 * @param tx The import's transaction.
 * @param source The source.
 * @param kind Which kind.
 * @param pairs Source id and id here, each.
 */
export async function recordImported(
  tx: Queryable,
  source: string,
  kind: ImportedKind,
  pairs: readonly (readonly [string, number])[],
): Promise<void> {
  if (pairs.length === 0) return;
  await tx.query(
    `INSERT INTO import_map (source, kind, source_id, target_id)
     SELECT $1, $2, s, t FROM unnest($3::text[], $4::bigint[]) AS u(s, t)
     ON CONFLICT (source, kind, source_id) DO UPDATE SET target_id = EXCLUDED.target_id, imported_at = now()`,
    [source, kind, pairs.map(([s]) => s), pairs.map(([, t]) => t)],
  );
}
