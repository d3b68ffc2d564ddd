import type {
  App,
  BlockAction,
  PlainTextInputAction,
  SlackViewMiddlewareArgs,
  types,
  ViewSubmitAction,
  webApi,
} from '@slack/bolt';
import { modalOf, note, plain, resultPage } from './blocks.ts';
import { queryProblem } from './command-text.ts';
import { ACTIONS, AUDIT_EVENTS, HOME_RECENT_REVEALS } from './constants.ts';
import type { Deps } from './deps.ts';
import { escapeText } from './escape.ts';
import { IDENTITY_MESSAGES } from './identity.ts';
import { auditWho, type Caller, runAsUser } from './run-as-user.ts';
import { errorFields } from './safe-error.ts';

type Block = types.KnownBlock;

const QUERY_BLOCK = 'query';

function searchInput(dispatch: boolean): Block {
  return {
    type: 'input',
    block_id: QUERY_BLOCK,
    dispatch_action: dispatch,
    label: plain('Find a credential'),
    element: {
      type: 'plain_text_input',
      action_id: ACTIONS.homeSearch,
      placeholder: plain('Part of a label, e.g. github'),
      max_length: 100,
      ...(dispatch ? { dispatch_action_config: { trigger_actions_on: ['on_enter_pressed'] } } : {}),
    },
  };
}

/** The search modal the shortcut opens. */
function searchModal(): types.ModalView {
  return {
    type: 'modal',
    callback_id: ACTIONS.findModal,
    title: plain('Find a credential'),
    submit: plain('Search'),
    close: plain('Close'),
    blocks: [searchInput(false)],
  };
}

/**
 * The App Home: the linked vault login (or how to get linked), the person's pending requests and
 * recent reveals (labels and times only), and a search box.
 *
 * @param deps The bot's parts.
 * @param user The Slack user.
 * @param client A Web API client.
 * @returns The view.
 */
export async function homeView(deps: Deps, user: string, client: webApi.WebClient): Promise<types.HomeView> {
  const identity = await deps.identity.resolve(user, client);
  const blocks: Block[] = [
    { type: 'header', text: plain('Vaultline') },
    {
      type: 'section',
      text: plain(
        identity.ok
          ? `Linked to the vault user ${escapeText(identity.login, 80)}. You see only what it may read.`
          : IDENTITY_MESSAGES[identity.reason],
      ),
    },
  ];
  if (identity.ok) blocks.push(searchInput(true));
  const pending = await deps.requests.pendingOf(user);
  blocks.push({ type: 'header', text: plain('Your pending requests') });
  blocks.push({
    type: 'section',
    text: plain(
      pending.length === 0
        ? 'None.'
        : pending
            .map(
              (request) =>
                `“${escapeText(request.typed, 100)}”, asked ${new Date(request.createdAt).toISOString()}, expires ${new Date(request.expiresAt).toISOString()}`,
            )
            .join('\n'),
    ),
  });
  const rows = await deps.db.query<{ label: string; at: number | string }>(
    'SELECT label, at FROM reveals WHERE slack_user = $1 ORDER BY at DESC LIMIT $2',
    [user, HOME_RECENT_REVEALS],
  );
  blocks.push({ type: 'header', text: plain('Your recent reveals') });
  blocks.push({
    type: 'section',
    text: plain(
      rows.length === 0
        ? 'None.'
        : rows
            .map((row) => `${escapeText(row.label, 100)}, ${new Date(Number(row.at)).toISOString()}`)
            .join('\n'),
    ),
  });
  return { type: 'home', blocks };
}

/** Runs `/vault find` for a modal: the results replace the modal's content. */
async function findInModal(deps: Deps, caller: Caller, text: string): Promise<void> {
  await runAsUser(deps, caller, AUDIT_EVENTS.find, async (login) => {
    const { items, complete } = await deps.search.find(login, text);
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

function modalCaller(
  user: string,
  team: string | undefined,
  client: webApi.WebClient,
  viewId: string,
): Caller {
  return {
    slackUser: user,
    slackTeam: team,
    channel: undefined,
    client,
    respond: async (message) => {
      const msg = message as { blocks?: Block[]; text?: string };
      await client.views.update({
        view_id: viewId,
        view: modalOf(
          msg.blocks ?? [{ type: 'section', text: plain(escapeText(msg.text ?? '')) }],
          'Find a credential',
        ),
      });
      return { status: 200 } as never;
    },
  };
}

/**
 * Registers the App Home, its search box and the global shortcut "Find a credential".
 *
 * @param app The Bolt app.
 * @param deps The bot's parts.
 */
export function registerHome(app: App, deps: Deps): void {
  app.event('app_home_opened', async ({ event, client }) => {
    if (event.tab !== 'home') return;
    try {
      await client.views.publish({ user_id: event.user, view: await homeView(deps, event.user, client) });
    } catch (error) {
      deps.logger.warn(errorFields(error, deps.redact), 'could not publish the App Home');
    }
  });
  app.shortcut(ACTIONS.findShortcut, async ({ ack, shortcut, client }) => {
    await ack();
    await client.views.open({ trigger_id: shortcut.trigger_id, view: searchModal() });
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
      // The modal says "searching" at once; the results replace it when the vault has answered.
      await args.ack({
        response_action: 'update',
        view: modalOf(
          [{ type: 'section', text: plain(`Searching the vault for “${escapeText(text, 200)}”…`) }],
          'Find a credential',
        ),
      });
      await findInModal(
        deps,
        modalCaller(args.body.user.id, args.body.team?.id ?? undefined, args.client, args.view.id),
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
      const opened = await client.views.open({
        trigger_id: body.trigger_id,
        view: modalOf(
          [
            {
              type: 'section',
              text: plain(
                problem ? escapeText(problem) : `Searching the vault for “${escapeText(text, 200)}”…`,
              ),
            },
          ],
          'Find a credential',
        ),
      });
      const viewId = opened.view?.id;
      if (problem || !viewId) return;
      await findInModal(deps, modalCaller(body.user.id, body.team?.id, client, viewId), text);
    },
  );
}
