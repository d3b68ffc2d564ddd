import type { Middleware, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { HELP_TEXT, noteMrkdwn } from '../blocks.ts';
import { isEchoableWord, parseCommandText } from '../command-text.ts';
import { LINK_WORDS, SUBCOMMANDS } from '../constants.ts';
import type { Deps } from '../deps.ts';
import { escapeMrkdwn } from '../escape.ts';
import { findCommand } from './find.ts';
import { getCommand } from './get.ts';
import { helpCommand } from './help.ts';
import { linkCommand } from './link.ts';
import { requestCommand } from './request.ts';
import { unblockCommand } from './unblock.ts';
import { unlinkCommand } from './unlink.ts';

/**
 * `/vault <subcommand> …`: hands the command to its subcommand; unknown ones get the help.
 *
 * @param deps The bot's parts.
 * @returns The handler.
 */
export function vaultCommand(deps: Deps): Middleware<SlackCommandMiddlewareArgs> {
  const handlers: Record<string, Middleware<SlackCommandMiddlewareArgs>> = {
    [SUBCOMMANDS.find]: findCommand(deps),
    [SUBCOMMANDS.get]: getCommand(deps),
    [SUBCOMMANDS.request]: requestCommand(deps),
    [SUBCOMMANDS.unlink]: unlinkCommand(deps),
    [SUBCOMMANDS.unblock]: unblockCommand(deps),
    [SUBCOMMANDS.help]: helpCommand(),
  };
  // Every word for linking is `link`: it refuses credentials typed after it, whichever word came first.
  const link = linkCommand(deps);
  for (const word of LINK_WORDS) handlers[word] = link;
  return async (args) => {
    const { sub } = parseCommandText(args.command.text);
    const handler = Object.hasOwn(handlers, sub) ? handlers[sub] : undefined;
    if (handler) {
      await handler(args);
      return;
    }
    // Only a short word is shown back: anything else may be a password typed in the wrong place.
    const intro =
      sub === ''
        ? ''
        : isEchoableWord(sub)
          ? `Unknown subcommand “${escapeMrkdwn(sub, 40)}”.\n`
          : 'Unknown subcommand.\n';
    await args.ack(noteMrkdwn(intro + HELP_TEXT));
  };
}
