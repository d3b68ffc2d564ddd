import type { App, types, webApi } from '@slack/bolt';
import { plain } from '../blocks.ts';
import { HOME_RECENT_REVEALS } from '../constants.ts';
import type { Deps } from '../deps.ts';
import { escapeText } from '../escape.ts';
import { accountProblemText } from '../linking/account-messages.ts';
import { linkBlocks } from '../linking/home-blocks.ts';
import { errorFields } from '../safe-error.ts';
import { searchInput } from './views.ts';

type Block = types.KnownBlock;

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
  const identity = await deps.accounts.whoIs(user, client);
  const blocks: Block[] = [{ type: 'header', text: plain('Vaultline') }];
  if (deps.accounts.linking) blocks.push(...(await linkBlocks(deps, user, identity)));
  else
    blocks.push({
      type: 'section',
      text: plain(
        identity.ok
          ? `Linked to the vault user ${escapeText(identity.login, 80)}. You see only what it may read.`
          : accountProblemText(identity.reason),
      ),
    });
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

/**
 * Publishes a person's App Home again (after they linked or unlinked); a failure is logged.
 *
 * @param deps The bot's parts.
 * @param user The Slack user.
 * @param client A Web API client.
 */
export async function publishHome(deps: Deps, user: string, client: webApi.WebClient): Promise<void> {
  try {
    await client.views.publish({ user_id: user, view: await homeView(deps, user, client) });
  } catch (error) {
    deps.logger.warn(errorFields(error, deps.redact), 'could not publish the App Home');
  }
}

/**
 * Registers the App Home: published each time its tab is opened.
 *
 * @param app The Bolt app.
 * @param deps The bot's parts.
 */
export function registerHome(app: App, deps: Deps): void {
  app.event('app_home_opened', async ({ event, client }) => {
    if (event.tab !== 'home') return;
    await publishHome(deps, event.user, client);
  });
}
