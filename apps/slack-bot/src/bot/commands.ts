import type { App } from '@slack/bolt';
import { vaultCommand } from '../commands/vault.ts';
import { COMMAND } from '../constants.ts';
import type { Deps } from '../deps.ts';

/**
 * Registers the slash command `/vault` and its subcommands.
 *
 * @param app The Bolt app.
 * @param deps The bot's parts.
 */
export function registerCommands(app: App, deps: Deps): void {
  app.command(COMMAND, vaultCommand(deps));
}
