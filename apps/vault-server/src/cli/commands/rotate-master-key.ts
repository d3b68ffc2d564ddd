/**
 * `vaultline-server rotate-master-key`: re-encrypts every secret under a new master key, with the
 * server stopped. The rotation itself is loaded only by this command.
 *
 * @module
 */

import { resolve } from 'node:path';
import { Command } from 'commander';
import { type CliContext, config, operator } from '../context.ts';

/**
 * The `rotate-master-key` command.
 *
 * @param context Where output goes.
 * @returns The command.
 */
export function rotateMasterKeyCommand(context: CliContext): Command {
  return new Command('rotate-master-key')
    .description('Re-encrypt all secrets under a new master key (server stopped).')
    .action(async () => {
      const { io } = context;
      const cfg = config(resolve('.data/vault'));
      const { rotateMasterKey } = await import('../rotate-master-key.ts');
      const result = await rotateMasterKey(operator(), {
        dataDir: cfg.dataDir,
        databaseUrl: cfg.databaseUrl,
        masterKey: cfg.masterKey,
        cacheTtlMs: 0,
      });
      io.out(`Re-encrypted ${result.items} passwords and ${result.files} attachments.\n`);
      if (result.accounts > 0) io.out(`Re-sealed ${result.accounts} upstream accounts.\n`);
      if (result.newKey) {
        io.out(`New master key (set VAULTLINE_MASTER_KEY to it before the next start):\n${result.newKey}\n`);
      }
    });
}
