import type { Middleware, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { note } from '../blocks.ts';
import { parseCommandText, queryProblem } from '../command-text.ts';
import { COMMAND } from '../constants.ts';
import type { Deps } from '../deps.ts';
import { escapeText } from '../escape.ts';
import { parseRequestText } from '../requests/parse.ts';
import { requestAccess } from '../requests/request.ts';
import { commandCaller } from '../run-as-user.ts';

/**
 * `/vault request <id or label> [reason]`: asks the approvers for a one-time reveal of an item.
 * A label of several words is quoted: `/vault request "db main" deploy fix`.
 *
 * @param deps The bot's parts.
 * @returns The handler.
 */
export function requestCommand(deps: Deps): Middleware<SlackCommandMiddlewareArgs> {
  return async (args) => {
    const { arg } = parseCommandText(args.command.text);
    const { typed, reason } = parseRequestText(arg);
    const problem = queryProblem(typed, `${COMMAND} request <id or label> [reason]`);
    if (problem) {
      await args.ack(note(escapeText(problem)));
      return;
    }
    await args.ack(note(`Asking the approvers for access to “${escapeText(typed, 200)}”…`));
    await requestAccess(deps, commandCaller(args), typed, reason);
  };
}
