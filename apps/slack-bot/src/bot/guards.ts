import type { AllMiddlewareArgs, AnyMiddlewareArgs, App } from '@slack/bolt';
import { note } from '../blocks.ts';
import { ACTIONS, AUDIT_EVENTS } from '../constants.ts';
import type { Deps } from '../deps.ts';
import { QUERY_BLOCK } from './views.ts';

/**
 * Registers what every request passes before its listener: it is noted for the ack gate, and the
 * per-user limit of commands and clicks is checked.
 *
 * @param app The Bolt app.
 * @param deps The bot's parts.
 */
export function registerGuards(app: App, deps: Deps): void {
  app.use(async (args) => {
    deps.ackFirst.mark();
    if (!(await withinCommandLimit(deps, args))) return;
    if (!(await fromItsOwner(deps, args))) return;
    await args.next();
  });
}

/**
 * A submission of a modal, or a click in one, counts only from the user the bot opened the modal
 * for (the `external_id` the bot gave it), and so does one in any view that carries an
 * `external_id`, whatever type the payload gives the view; anyone else's is acknowledged, refused
 * and logged. Messages and the App Home (published per user, without an external_id) are not
 * views a payload can redirect.
 */
async function fromItsOwner(deps: Deps, args: AnyMiddlewareArgs & AllMiddlewareArgs): Promise<boolean> {
  const body = args.body as {
    type?: unknown;
    user?: { id?: unknown };
    team?: { id?: unknown } | null;
    view?: { type?: unknown; external_id?: unknown; blocks?: unknown } | null;
  };
  const kinds = ['view_submission', 'view_closed', 'block_actions'];
  if (typeof body.type !== 'string' || !kinds.includes(body.type) || !body.view) return true;
  // Every modal, and any view that carries an external_id whatever its type says (the link form's
  // submission updates the view by that id): the type is the payload's word, not a proof.
  const external = body.view.external_id;
  if (body.view.type !== 'modal' && (external === undefined || external === null || external === ''))
    return true;
  const user = typeof body.user?.id === 'string' ? body.user.id : '';
  if (deps.views.ownerOf(body.view.external_id) === user) return true;
  deps.logger.warn(
    { type: body.type, slackUser: user },
    'refused a modal of another user (or one the bot did not open)',
  );
  await deps.audit.record({
    event: AUDIT_EVENTS.viewRefused,
    slackUser: user,
    slackTeam: typeof body.team?.id === 'string' ? body.team.id : undefined,
    login: undefined,
    channel: undefined,
    outcome: 'not_owner',
  });
  if (!('ack' in args)) return false;
  if (body.type === 'view_submission')
    await (args.ack as (response: unknown) => Promise<void>)({
      response_action: 'errors',
      errors: {
        [firstInputOf(body.view.blocks) ?? QUERY_BLOCK]:
          'This window is out of date; please close it and open it again.',
      },
    });
  else await (args.ack as () => Promise<void>)();
  return false;
}

/** The block id of a view's first input (an error must name a block of the view it is about). */
function firstInputOf(blocks: unknown): string | undefined {
  if (!Array.isArray(blocks)) return undefined;
  for (const block of blocks as { type?: unknown; block_id?: unknown }[])
    if (block?.type === 'input' && typeof block.block_id === 'string') return block.block_id;
  return undefined;
}

/**
 * The per-user limit of commands and clicks, checked before anything reaches the vault: one
 * person's flood is answered "slow down" alone, long before the vault's budget for the bot's
 * address (which every user shares) runs out.
 */
async function withinCommandLimit(deps: Deps, args: AnyMiddlewareArgs & AllMiddlewareArgs): Promise<boolean> {
  const body = args.body as {
    user_id?: unknown;
    user?: { id?: unknown };
    team_id?: unknown;
    channel_id?: unknown;
  };
  const user = typeof body.user_id === 'string' ? body.user_id : body.user?.id;
  if (typeof user !== 'string' || !('ack' in args)) return true;
  // Opening a link is Slack's own doing; the click only has to be acknowledged.
  if ('action' in args && (args.action as { action_id?: string }).action_id === ACTIONS.openUrl) return true;
  const limit = await deps.commandLimiter.hit(user);
  if (limit.allowed) return true;
  const message = note(
    `You are sending commands faster than the bot allows. Please wait ${limit.retryAfterSeconds} s.`,
  );
  if ('command' in args) await args.ack(message);
  else {
    await (args.ack as () => Promise<void>)();
    if ('respond' in args && typeof (args.body as { response_url?: unknown }).response_url === 'string')
      await args.respond(message).catch(() => undefined);
  }
  await deps.audit.record({
    event: AUDIT_EVENTS.commandLimited,
    slackUser: user,
    slackTeam: typeof body.team_id === 'string' ? body.team_id : undefined,
    login: undefined,
    channel: typeof body.channel_id === 'string' ? body.channel_id : undefined,
    outcome: 'rate_limited',
  });
  return false;
}
