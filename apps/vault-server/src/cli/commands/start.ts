/**
 * `vaultline-server start` and `quickstart`: the commands that leave a server running until
 * SIGTERM or SIGINT.
 *
 * @module
 */

import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { EXIT } from '@vaultline/protocol';
import { Command } from 'commander';
import { configFromEnv } from '../../config.ts';
import { QUICKSTART_KEY_FILE } from '../../constants.ts';
import { writeSecretFile } from '../../crypto/master-key.ts';
import { releaseStartUpMemory } from '../../start-up-memory.ts';
import { startVaultServer } from '../../start-vault-server.ts';
import { type CliContext, type CliIo, config, operator, repoRoot } from '../context.ts';
import { rootRefusal } from '../root-check.ts';

function untilSignal(io: CliIo, close: () => Promise<void>): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    io.err(`${signal} received: finishing requests in flight…\n`);
    close().then(
      () => process.exit(EXIT.ok),
      (error: unknown) => {
        io.err(`error while stopping: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(EXIT.error);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/**
 * The `start` command.
 *
 * @param context Where output goes.
 * @returns The command.
 */
export function startCommand(context: CliContext): Command {
  return new Command('start')
    .description('Serve the API (configuration from VAULTLINE_* env and DATABASE_URL).')
    .option(
      '--upstream <url>',
      "upstream mode: serve this TeamPass 3 (or 2) server's items as the accounts of `upstream add` (VAULTLINE_UPSTREAM_URL)",
    )
    .action(async (options: { upstream?: string }) => {
      const { io } = context;
      const refusal = rootRefusal(process.getuid?.(), process.env);
      if (refusal !== undefined) throw new Error(refusal);
      const env =
        options.upstream === undefined
          ? process.env
          : { ...process.env, VAULTLINE_UPSTREAM_URL: options.upstream };
      const server = await startVaultServer(configFromEnv(env, resolve('.data/vault')));
      untilSignal(io, () => server.close());
      // What opening the store took and no longer needs, back to the system before serving.
      releaseStartUpMemory();
      io.err(`Vaultline vault server listening on ${server.url}\n`);
      context.keepAlive();
    });
}

async function quickstart(io: CliIo): Promise<void> {
  const cfg = config(join(repoRoot(), '.data/vault'));
  if (cfg.dataDir === undefined) throw new Error('quickstart needs a data directory.');
  const dataDir = cfg.dataDir;
  const server = await startVaultServer({ ...cfg, log: { write: () => {} } });
  // Before anything is printed: whoever reads "Press Ctrl+C" may signal at once.
  untilSignal(io, () => server.close());
  try {
    const keyFile = join(dataDir, QUICKSTART_KEY_FILE);
    const admin = server.vault.adminAs(operator());
    let adminKey: string;
    if (existsSync(keyFile)) {
      adminKey = (await readFile(keyFile, 'utf8')).trim();
      io.out(`Reusing the vault in ${dataDir}\n`);
    } else {
      adminKey = await admin.createKey({ label: `quickstart-admin-${Date.now()}` });
      // A vault that already has users (made with `start` and the CLI) keeps its data: no demo on top.
      const empty = (await admin.listUsers()).length === 0;
      if (empty) await (await import('../demo.ts')).seedDemo(server.url, adminKey, admin);
      await writeSecretFile(keyFile, adminKey);
      io.out(`${empty ? 'Created a demo vault' : 'Created an admin key for the vault'} in ${dataDir}\n`);
    }
    const api = `${server.url}/api/index.php`;
    io.out(
      [
        '',
        `Vaultline vault server: ${server.url}`,
        `Admin API key:          ${adminKey}`,
        `  (a demo convenience: kept in ${keyFile}, mode 0600; \`start\` never stores keys)`,
        '',
        'Try:',
        `  curl -H 'Authorization: Bearer ${adminKey}' '${api}/read/userfolders/alice'`,
        `  curl -H 'Authorization: Bearer ${adminKey}' '${api}/find/item/1;2;3;4;5;6/postgres%20prod'`,
        `  curl -H 'Authorization: Bearer ${adminKey}' '${api}/read/items/1;2'`,
        '',
        'Press Ctrl+C to stop.',
        '',
      ].join('\n'),
    );
  } catch (error) {
    await server.close();
    throw error;
  }
}

/**
 * The `quickstart` command: a server with the demo vault in the repository's `.data/vault`.
 *
 * @param context Where output goes.
 * @returns The command.
 */
export function quickstartCommand(context: CliContext): Command {
  return new Command('quickstart')
    .description('Start with the demo vault in ./.data/vault and print an admin key.')
    .action(async () => {
      await quickstart(context.io);
      context.keepAlive();
    });
}
