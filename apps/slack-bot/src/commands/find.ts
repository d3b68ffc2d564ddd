import type { Middleware, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { note, resultPage } from '../blocks.ts';
import { parseCommandText, queryProblem } from '../command-text.ts';
import { AUDIT_EVENTS, COMMAND } from '../constants.ts';
import type { Deps } from '../deps.ts';
import { escapeText } from '../escape.ts';
import { auditWho, commandCaller, runAsUser } from '../run-as-user.ts';

/**
 * `/vault find <text>`: acks at once, then answers (to the caller only) with the items their vault
 * user may read with every word of the text in their label, login, URL or folder path, best first, a page at a
 * time.
 *
 * @param deps The bot's parts.
 * @returns The handler.
 */
export function findCommand(deps: Deps): Middleware<SlackCommandMiddlewareArgs> {
  return async (args) => {
    const { command, ack, respond } = args;
    const { arg } = parseCommandText(command.text);
    const problem = queryProblem(arg, `${COMMAND} find <text>`);
    if (problem) {
      await ack(note(escapeText(problem)));
      return;
    }
    await ack(note(`Searching the vault for “${escapeText(arg, 200)}”…`));
    const caller = commandCaller(args);
    await runAsUser(deps, caller, AUDIT_EVENTS.find, async ({ login, search }) => {
      const { items, complete } = await search.find(login, arg);
      await deps.audit.record({
        event: AUDIT_EVENTS.find,
        ...auditWho(caller, login),
        query: arg,
        results: items.length,
      });
      if (items.length === 0) {
        await respond(note(`No item you can read matches “${escapeText(arg, 200)}”.`));
        return;
      }
      await respond(resultPage(items, { kind: 'find', q: arg, p: 0, complete }, deps.config.pageSize, false));
    });
  };
}
