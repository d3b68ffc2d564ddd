/**
 * `vaultline-server audit`: the audit log, newest first.
 *
 * @module
 */

import { Command } from 'commander';
import { type CliContext, withAdmin } from '../context.ts';
import { positiveInteger } from '../options.ts';
import { list } from '../output.ts';

/**
 * The `audit` command.
 *
 * @param context Where output goes.
 * @returns The command.
 */
export function auditCommand(context: CliContext): Command {
  return new Command('audit')
    .description('Show the audit log, newest first.')
    .option('--limit <n>', 'how many records (1 to 999999)', positiveInteger('--limit', 999_999), 50)
    .option('--action <operation>', 'only this action, e.g. add/item or admin/grant')
    .option('--json', 'one JSON record per line')
    .action(async (options: { limit: number; action?: string; json?: boolean }) => {
      const entries = await withAdmin((admin) =>
        admin.listAudit({ limit: options.limit, action: options.action }),
      );
      list(
        context.io,
        options.json,
        entries.map((e) => ({
          at: e.at,
          actor: e.actor,
          key: e.keyLabel,
          action: e.action,
          target: e.target,
          address: e.address,
          outcome: e.outcome,
          count: e.count,
        })),
        entries,
      );
    });
}
