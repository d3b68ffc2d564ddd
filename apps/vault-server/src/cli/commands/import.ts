/**
 * `vaultline-server import`: copies a vault that speaks the API into this one, with a progress bar
 * on a terminal and a closing summary. The import itself and the progress bar are loaded only by
 * this command.
 *
 * @module
 */

import { EXIT } from '@vaultline/protocol';
import { Command } from 'commander';
import type { ImportSummary } from '../../import/types.ts';
import { operatorActor } from '../../store/actor.ts';
import { type CliContext, operator, withVault } from '../context.ts';
import { collect } from '../options.ts';
import { readSecret } from '../read-secret.ts';

function importReport(summary: ImportSummary): string {
  const count = (name: string, c: { added: number; existing: number }) =>
    `  ${name.padEnd(8)} ${summary.dryRun ? 'would add' : 'added'} ${c.added}, already here ${c.existing}\n`;
  const lines = [
    `${summary.dryRun ? 'Dry run: nothing written. ' : ''}Import from ${summary.source}:\n`,
    count('folders', summary.folders),
    count('items', summary.items),
    count('files', summary.files),
    count('users', summary.users),
    count('rights', summary.rights),
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
    .option('--dry-run', 'read the source and report what would be added, without writing')
    .option('--json', 'print the summary as JSON')
    .action(
      async (
        options: {
          from: string;
          apiKey?: string;
          passwordStdin?: boolean;
          login: string[];
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
          const summary = await withVault((vault) =>
            importVault(vault, operatorActor(operator().name, 'import'), {
              from: options.from,
              apiKey,
              password,
              logins: options.login,
              dryRun: options.dryRun === true,
              onProgress: (next, done, total) => {
                if (!bar) return;
                if (next !== phase) {
                  if (phase !== '') bar.stop();
                  phase = next;
                  bar.start(total, done, { phase: next.padEnd(7) });
                } else bar.update(done);
              },
            }),
          );
          bar?.stop();
          context.io.out(options.json ? `${JSON.stringify(summary)}\n` : importReport(summary));
        } catch (error) {
          bar?.stop();
          throw error;
        }
      },
    );
}
