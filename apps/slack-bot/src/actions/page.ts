import type { Middleware } from '@slack/bolt';
import * as v from 'valibot';
import { note, resultPage } from '../blocks.ts';
import { queryProblem } from '../command-text.ts';
import { AUDIT_EVENTS } from '../constants.ts';
import type { Deps } from '../deps.ts';
import { escapeText } from '../escape.ts';
import { auditWho, runAsUser } from '../run-as-user.ts';
import { type ButtonClick, callerOf } from './button-args.ts';

const PageStateSchema = v.object({
  kind: v.picklist(['find', 'get']),
  q: v.string(),
  p: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100_000)),
  exact: v.optional(v.boolean(), false),
  complete: v.optional(v.boolean(), true),
});

/**
 * "Previous" / "Next": runs the same search again, with the rights of now, and replaces the page.
 *
 * @param deps The bot's parts.
 * @returns The handler.
 */
export function pageAction(deps: Deps): Middleware<ButtonClick> {
  return async (args) => {
    await args.ack();
    const caller = callerOf(args, deps.views);
    let state: v.InferOutput<typeof PageStateSchema> | undefined;
    try {
      const parsed = v.safeParse(PageStateSchema, JSON.parse(args.action.value ?? ''));
      state = parsed.success && !queryProblem(parsed.output.q, '') ? parsed.output : undefined;
    } catch {
      state = undefined;
    }
    if (!state) {
      await caller.respond(note('That button is out of date; please search again.'));
      return;
    }
    const page = state;
    await runAsUser(deps, caller, AUDIT_EVENTS.find, async ({ login, search }) => {
      const { items, ...fresh } =
        page.kind === 'find' ? await search.find(login, page.q) : await search.get(login, page.q);
      await deps.audit.record({
        event: AUDIT_EVENTS.find,
        ...auditWho(caller, login),
        query: page.q,
        results: items.length,
        outcome: `page ${page.p + 1}`,
      });
      // A page in a modal has no response_url: the caller's respond updates the modal instead.
      await caller.respond(
        items.length === 0
          ? note(`No item you can read matches “${escapeText(page.q, 200)}” any more.`, true)
          : resultPage(items, { ...page, ...fresh }, deps.config.pageSize, true),
      );
    });
  };
}
