/**
 * `vaultline-server demo`: seeds the demo vault into the configured store, through a server of its
 * own on a free loopback port and a key it revokes afterwards.
 *
 * @module
 */

import { resolve } from 'node:path';
import { Command } from 'commander';
import { startVaultServer } from '../../start-vault-server.ts';
import { type CliContext, config, operator } from '../context.ts';

/**
 * The `demo` command.
 *
 * @param context Where output goes.
 * @returns The command.
 */
export function demoCommand(context: CliContext): Command {
  return new Command('demo')
    .description('Seed the demo vault into the configured store.')
    .action(async () => {
      const cfg = config(resolve('.data/vault'));
      const server = await startVaultServer({ ...cfg, host: '127.0.0.1', port: 0, log: { write: () => {} } });
      const label = `demo-seed-${Date.now()}`;
      const admin = server.vault.adminAs(operator());
      try {
        const key = await admin.createKey({ label });
        const { seedDemo } = await import('../demo.ts');
        const seeded = await seedDemo(server.url, key, admin);
        await admin.revokeKey(label);
        context.io.out(
          `Seeded the demo vault: users ${Object.keys(seeded.users).join(', ')}; ${Object.keys(seeded.folders).length} folders; ${Object.keys(seeded.items).length} items.\n`,
        );
      } finally {
        await server.close();
      }
    });
}
