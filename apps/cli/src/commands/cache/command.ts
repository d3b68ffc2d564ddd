/**
 * `vaultline cache clear`: deletes the values `run` and `inject` keep for outages
 * (`--cache-max-age`), for every connection, without asking the vault or the credentials.
 *
 * @module
 */

import { Command } from 'commander';
import { ENV } from '../../constants.ts';
import { type CommandContext, lazy } from '../../context.ts';

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
      .action(lazy(context, async () => (await import('./action.ts')).clearAction)),
  );
  return cache;
}
