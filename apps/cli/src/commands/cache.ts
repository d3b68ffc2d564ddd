/**
 * `vaultline cache clear`: deletes the values `run` and `inject` keep for outages
 * (`--cache-max-age`), for every connection, without asking the vault or the credentials.
 *
 * @module
 */

import { clearValueCaches } from '@vaultline/protocol/node';
import { Command } from 'commander';
import { ENV } from '../constants.ts';
import type { CommandContext } from '../context.ts';

/**
 * The `cache` command.
 *
 * @param context The environment and output.
 * @returns The command.
 */
export function cacheCommand(context: CommandContext): Command {
  const cache = new Command('cache').description(
    `The values kept for outages by run and inject --cache-max-age, sealed in the cache directory (${ENV.cacheDir}).`,
  );
  cache.addCommand(
    new Command('clear')
      .description('Delete every cached value, of every connection (the session tokens stay).')
      .action(async () => {
        const { env, output } = context;
        const count = await clearValueCaches(env.cacheDir);
        output.err(
          count === 0
            ? `No cached values in ${env.cacheDir}.`
            : `Deleted the cached values of ${count} connection${count === 1 ? '' : 's'} from ${env.cacheDir}.`,
        );
      }),
  );
  return cache;
}
