/**
 * `vaultline-server import`: copies a vault that speaks the API into this one, with a progress bar
 * on a terminal and a closing summary. The import itself and the progress bar are loaded only by
 * this command.
 *
 * @module
 */

import { writeFile } from 'node:fs/promises';
import { EXIT } from '@vaultline/protocol';
import { Command } from 'commander';
import type { ImportSummary } from '../../import/types.ts';
import { operatorActor } from '../../store/actor.ts';
import { importedIds } from '../../store/import-map.ts';
import type { Vault } from '../../vault.ts';
import { type CliContext, operator, withVault } from '../context.ts';
import { collect } from '../options.ts';
import { readSecret } from '../read-secret.ts';

/** What the report says of ids: kept, or every one that changed, as `kind source → here`. */
function idLines(summary: ImportSummary): string[] {
  const { kept, changed } = summary.ids;
  const would = summary.dryRun ? 'would keep' : 'kept';
  const lines = [`  ids      ${would} ${kept} source ids (folders and items)\n`];
  const moved = changed.filter((change) => change.kind !== 'file');
  if (moved.length > 0) {
    lines.push(
      `  ${moved.length} ${summary.dryRun ? 'would get' : 'got'} another id: their source id is taken here (a folder or item of this vault has it); references and scripts written for the source must use the new one${summary.dryRun ? ' (the ids below, if nothing is added here before the import)' : ''}:\n`,
    );
  }
  const files = changed.length - moved.length;
  if (files > 0)
    lines.push(
      `  ${files} attachments ${summary.dryRun ? 'would get' : 'got'} new ids (attachments never keep theirs)\n`,
    );
  for (const change of changed) {
    lines.push(`    ${change.kind} ${change.source} → ${change.id ?? 'a new id'}\n`);
  }
  return lines;
}

function importReport(summary: ImportSummary): string {
  const count = (name: string, c: { added: number; existing: number }) =>
    `  ${name.padEnd(8)} ${summary.dryRun ? 'would add' : 'added'} ${c.added}, already here ${c.existing}\n`;
  const lines = [
    `${summary.dryRun ? 'Dry run: nothing written. ' : ''}Import from ${summary.source}:\n`,
    count('folders', summary.folders),
    count('items', summary.items),
    count('files', summary.files),
    `  one-time codes: ${summary.dryRun ? 'would carry' : 'carried'} ${summary.carried.otp} TOTP secrets; custom fields: ${summary.carried.fields} items (sealed like passwords)\n`,
    count('users', summary.users),
    count('rights', summary.rights),
    ...idLines(summary),
    `  skipped  ${summary.skipped.length}\n`,
    ...summary.skipped.map((entry) => `    ${entry.what}: ${entry.reason}\n`),
  ];
  const nothingNew = [summary.folders, summary.items, summary.files, summary.users, summary.rights].every(
    (c) => c.added === 0,
  );
  if (nothingNew)
    lines.push('Nothing new to import: this vault already holds everything the source showed.\n');
  return lines.join('');
}

/**
 * Writes the map of a source: every folder, item and attachment imported from it (this run and
 * earlier ones) that is still here, with its id here.
 */
async function writeMapFile(path: string, vault: Vault, source: string): Promise<void> {
  const rows: string[] = ['kind,source_id,id'];
  for (const kind of ['folder', 'item', 'file'] as const) {
    const map = await importedIds(vault.db, source, kind);
    const sorted = [...map].sort(([a], [b]) => Number(a) - Number(b) || a.localeCompare(b));
    for (const [sourceId, id] of sorted) rows.push(`${kind},${sourceId},${id}`);
  }
  await writeFile(path, `${rows.join('\n')}\n`);
}

/**
 * The `import` command.
 *
 * @param context Where output goes.
 * @returns The command.
 */
export function importCommand(context: CliContext): Command {
  return new Command('import')
    .description(
      'Copy a vault into this one: TeamPass 2, TeamPass 3 (what the given account sees) or another Vaultline server. The folders and rights of the given logins, their items and attachments. A re-run adds only what is new.',
    )
    .requiredOption('--from <url>', "the source's base URL (before /api/index.php)")
    .option(
      '--api-key <key>',
      "the source's API key; on TeamPass 3 the account's own (or VAULTLINE_IMPORT_API_KEY, kept out of the process list)",
    )
    .option(
      '--password-stdin',
      "TeamPass 3: read the account's password from stdin (without echo on a terminal); or set VAULTLINE_IMPORT_PASSWORD",
    )
    .option(
      '--login <login>',
      'copy the folders this login sees, and its rights (repeatable, at least one; on TeamPass 3 exactly one: the account to sign in as)',
      collect,
      [],
    )
    .option(
      '--map-file <path>',
      'write what each source folder, item and attachment is here to this CSV file (kind,source_id,id), every run from this source included',
    )
    .option(
      '--attachments',
      'read attachments from a source that does not say it has file endpoints (a TeamPass 2 fork that has them): one read/listfiles per item',
    )
    .option('--dry-run', 'read the source and report what would be added, without writing')
    .option('--json', 'print the summary as JSON')
    .action(
      async (
        options: {
          from: string;
          apiKey?: string;
          passwordStdin?: boolean;
          login: string[];
          mapFile?: string;
          attachments?: boolean;
          dryRun?: boolean;
          json?: boolean;
        },
        command: Command,
      ) => {
        const apiKey = options.apiKey ?? process.env.VAULTLINE_IMPORT_API_KEY;
        if (apiKey === undefined || apiKey === '')
          command.error('error: missing the source key: pass --api-key or set VAULTLINE_IMPORT_API_KEY', {
            exitCode: EXIT.usage,
          });
        if (options.mapFile !== undefined && options.dryRun)
          command.error('error: --map-file writes what an import did: leave out --dry-run, or --map-file', {
            exitCode: EXIT.usage,
          });
        if (options.login.length === 0)
          command.error(
            'error: give at least one --login: the API lists folders per user only, so the logins decide what is copied',
            { exitCode: EXIT.usage },
          );
        // Never an option's value: the process list and the shell's history would keep it.
        const password = options.passwordStdin
          ? await readSecret(process.stdin, 'Password of the source account: ')
          : process.env.VAULTLINE_IMPORT_PASSWORD || undefined;
        const [{ default: cliProgress }, { importVault }] = await Promise.all([
          import('cli-progress'),
          import('../../import/import-vault.ts'),
        ]);
        const bar =
          process.stderr.isTTY && !options.json
            ? new cliProgress.SingleBar(
                { format: '{phase} [{bar}] {value}/{total}', stream: process.stderr, hideCursor: true },
                cliProgress.Presets.shades_classic,
              )
            : undefined;
        let phase = '';
        try {
          const summary = await withVault(async (vault) => {
            const done = await importVault(vault, operatorActor(operator().name, 'import'), {
              from: options.from,
              apiKey,
              password,
              logins: options.login,
              attachments: options.attachments === true,
              dryRun: options.dryRun === true,
              onProgress: (next, done, total) => {
                if (!bar) return;
                if (next !== phase) {
                  if (phase !== '') bar.stop();
                  phase = next;
                  bar.start(total, done, { phase: next.padEnd(7) });
                } else bar.update(done);
              },
            });
            if (options.mapFile !== undefined) await writeMapFile(options.mapFile, vault, done.source);
            return done;
          });
          bar?.stop();
          context.io.out(options.json ? `${JSON.stringify(summary)}\n` : importReport(summary));
        } catch (error) {
          bar?.stop();
          throw error;
        }
      },
    );
}
