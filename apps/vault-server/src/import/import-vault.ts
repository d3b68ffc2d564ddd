/**
 * `vaultline-server import`: copies a vault that speaks the API (TeamPass, or another Vaultline
 * server) into this one, through the protocol client, in two phases: the read phase reads the
 * source and decides what to add ({@link readImport}, a plain snapshot); the write phase applies
 * the snapshot here in one transaction ({@link writeImport}). A failure leaves nothing
 * half-imported.
 *
 * @module
 */

import type { Actor } from '../store/actor.ts';
import type { Vault } from '../vault.ts';
import { readImport } from './read-import.ts';
import type { ImportOptions, ImportSummary } from './types.ts';
import { writeImport } from './write-import.ts';

/**
 * Imports a source vault into this one; with `dryRun`, only reads and reports.
 *
 * @param vault This vault.
 * @param actor Who imports: every write is audited with it.
 * @param options The source and what to copy.
 * @returns The summary.
 */
export async function importVault(
  vault: Vault,
  actor: Actor,
  options: ImportOptions,
): Promise<ImportSummary> {
  const snapshot = await readImport(vault.db, options);
  if (options.dryRun) return snapshot.summary;
  const progress = options.onProgress ?? (() => {});
  progress('writing', 0, 1);
  const ids = await writeImport(vault, actor, snapshot);
  progress('writing', 1, 1);
  return { ...snapshot.summary, ids };
}
