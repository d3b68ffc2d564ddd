import type { Middleware, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { note, requestAccessOffer, resultPage, singleItem } from '../blocks.ts';
import { parseCommandText, queryProblem } from '../command-text.ts';
import { AUDIT_EVENTS, COMMAND } from '../constants.ts';
import type { Deps } from '../deps.ts';
import { escapeText } from '../escape.ts';
import { auditWho, commandCaller, runAsUser } from '../run-as-user.ts';

/**
 * `/vault get <id or exact label>`: one item the caller may read; a label several readable items
 * share lists them with their paths.
 *
 * @param deps The bot's parts.
 * @returns The handler.
 */
export function getCommand(deps: Deps): Middleware<SlackCommandMiddlewareArgs> {
  return async (args) => {
    const { command, ack, respond } = args;
    const { arg } = parseCommandText(command.text);
    const problem = queryProblem(arg, `${COMMAND} get <id or exact label>`);
    if (problem) {
      await ack(note(escapeText(problem)));
      return;
    }
    await ack(note(`Looking up “${escapeText(arg, 200)}”…`));
    const caller = commandCaller(args);
    await runAsUser(deps, caller, AUDIT_EVENTS.get, async ({ login, search }) => {
      const { items, exact } = await search.get(login, arg);
      const [first] = items;
      const single = exact && items.length === 1;
      await deps.audit.record({
        event: AUDIT_EVENTS.get,
        ...auditWho(caller, login),
        query: arg,
        results: items.length,
        itemId: single ? first?.id : undefined,
        label: single ? first?.label : undefined,
      });
      if (first === undefined) {
        // The same answer whether the item exists or not; the button asks for what was typed.
        await respond(requestAccessOffer(arg));
        return;
      }
      await respond(
        single
          ? singleItem(first)
          : resultPage(items, { kind: 'get', q: arg, p: 0, exact }, deps.config.pageSize, false),
      );
    });
  };
}
