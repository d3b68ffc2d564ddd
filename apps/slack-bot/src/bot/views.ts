import type {
  App,
  BlockAction,
  PlainTextInputAction,
  SlackViewMiddlewareArgs,
  types,
  ViewSubmitAction,
  webApi,
} from '@slack/bolt';
import { modalOf, note, plain, resultPage } from '../blocks.ts';
import { queryProblem } from '../command-text.ts';
import { ACTIONS, AUDIT_EVENTS } from '../constants.ts';
import type { Deps } from '../deps.ts';
import { escapeText } from '../escape.ts';
import { auditWho, type Caller, runAsUser } from '../run-as-user.ts';

type Block = types.KnownBlock;

/** The block id of the search box, in the App Home and the search modal. */
export const QUERY_BLOCK = 'query';

/** The title of the search modal and of the views that replace it. */
const FIND_TITLE = 'Find a credential';

/**
 * The search box: in the search modal, or in the App Home (where Enter runs it).
 *
 * @param dispatch Whether pressing Enter sends it (the App Home has no submit button).
 * @returns The input block.
 */
export function searchInput(dispatch: boolean): Block {
  return {
    type: 'input',
    block_id: QUERY_BLOCK,
    dispatch_action: dispatch,
    label: plain(FIND_TITLE),
    element: {
      type: 'plain_text_input',
      action_id: ACTIONS.homeSearch,
      placeholder: plain('Part of a label, e.g. github'),
      max_length: 100,
      ...(dispatch ? { dispatch_action_config: { trigger_actions_on: ['on_enter_pressed'] } } : {}),
    },
  };
}

/** The search modal the shortcut opens, tied to the user it is opened for. */
function searchModal(externalId: string): types.ModalView {
  return {
    type: 'modal',
    callback_id: ACTIONS.findModal,
    external_id: externalId,
    title: plain(FIND_TITLE),
    submit: plain('Search'),
    close: plain('Close'),
    blocks: [searchInput(false)],
  };
}

/** A modal of results (or a note) that keeps the external_id of the user's search modal. */
function findModalOf(blocks: readonly Block[], externalId: string): types.ModalView {
  return { ...modalOf(blocks, FIND_TITLE), external_id: externalId };
}

/** Runs `/vault find` for a modal: the results replace the modal's content. */
async function findInModal(deps: Deps, caller: Caller, text: string): Promise<void> {
  await runAsUser(deps, caller, AUDIT_EVENTS.find, async ({ login, search }) => {
    const { items, complete } = await search.find(login, text);
    await deps.audit.record({
      event: AUDIT_EVENTS.find,
      ...auditWho(caller, login),
      query: text,
      results: items.length,
      outcome: 'modal',
    });
    await caller.respond(
      items.length === 0
        ? note(`No item you can read matches “${escapeText(text, 200)}”.`, true)
        : resultPage(items, { kind: 'find', q: text, p: 0, complete }, deps.config.pageSize, true),
    );
  });
}

/**
 * The caller of a search in a modal: answers replace the modal, found by the `external_id` the bot
 * gave it for this user (never by a view id a payload names).
 */
function modalCaller(
  user: string,
  team: string | undefined,
  client: webApi.WebClient,
  externalId: string,
): Caller {
  return {
    slackUser: user,
    slackTeam: team,
    channel: undefined,
    client,
    respond: async (message) => {
      const msg = message as { blocks?: Block[]; text?: string };
      const blocks = msg.blocks ?? [{ type: 'section', text: plain(escapeText(msg.text ?? '')) }];
      await client.views.update({ external_id: externalId, view: findModalOf(blocks, externalId) });
      return { status: 200 } as never;
    },
  };
}

/**
 * Registers the global shortcut "Find a credential", its modal's submission, and the App Home's
 * search box (which opens the same results in a modal). Every modal carries the external_id the
 * bot gave it for the user it opened it for; the guards refuse anyone else's submission or click.
 *
 * @param app The Bolt app.
 * @param deps The bot's parts.
 */
export function registerViews(app: App, deps: Deps): void {
  app.shortcut(ACTIONS.findShortcut, async ({ ack, shortcut, client }) => {
    await ack();
    await client.views.open({
      trigger_id: shortcut.trigger_id,
      view: searchModal(deps.views.tag(shortcut.user.id)),
    });
  });
  app.view<ViewSubmitAction>(
    ACTIONS.findModal,
    async (args: SlackViewMiddlewareArgs<ViewSubmitAction> & { client: webApi.WebClient }) => {
      const text = (args.view.state.values[QUERY_BLOCK]?.[ACTIONS.homeSearch]?.value ?? '').trim();
      const problem = queryProblem(text, 'a part of a label');
      if (problem) {
        await args.ack({ response_action: 'errors', errors: { [QUERY_BLOCK]: problem } });
        return;
      }
      // The guards checked that this external_id is the one the bot gave this user's modal.
      const externalId = args.view.external_id;
      if (!externalId) {
        await args.ack();
        return;
      }
      // The modal says "searching" at once; the results replace it when the vault has answered.
      await args.ack({
        response_action: 'update',
        view: findModalOf(
          [{ type: 'section', text: plain(`Searching the vault for “${escapeText(text, 200)}”…`) }],
          externalId,
        ),
      });
      await findInModal(
        deps,
        modalCaller(args.body.user.id, args.body.team?.id ?? undefined, args.client, externalId),
        text,
      );
    },
  );
  app.action<BlockAction<PlainTextInputAction>>(
    { type: 'block_actions', action_id: ACTIONS.homeSearch },
    async ({ ack, action, body, client }) => {
      await ack();
      const text = (action.value ?? '').trim();
      const problem = queryProblem(text, 'a part of a label');
      const externalId = deps.views.tag(body.user.id);
      const said = problem ? escapeText(problem) : `Searching the vault for “${escapeText(text, 200)}”…`;
      await client.views.open({
        trigger_id: body.trigger_id,
        view: findModalOf([{ type: 'section', text: plain(said) }], externalId),
      });
      if (problem) return;
      await findInModal(deps, modalCaller(body.user.id, body.team?.id, client, externalId), text);
    },
  );
}
