import type {
  AllMiddlewareArgs,
  BlockAction,
  ButtonAction,
  RespondArguments,
  RespondFn,
  SlackActionMiddlewareArgs,
  types,
} from '@slack/bolt';
import { parseId } from '@vaultline/protocol';
import { modalOf, plain } from '../blocks.ts';
import { escapeText } from '../escape.ts';
import type { Caller } from '../run-as-user.ts';
import type { ViewOwners } from '../view-owners.ts';

/** A button click. */
export type ButtonClick = SlackActionMiddlewareArgs<BlockAction<ButtonAction>>;
/** The arguments of a button click handler. */
export type ButtonArgs = ButtonClick & AllMiddlewareArgs;

/**
 * Who clicked, and where.
 *
 * @param args The click.
 * @param views The owners of the modals the bot opens (a click in a modal is answered there).
 * @returns The caller.
 */
export function callerOf(args: ButtonArgs, views: ViewOwners): Caller {
  return {
    slackUser: args.body.user.id,
    slackTeam: args.body.team?.id ?? args.body.user.team_id,
    channel: args.body.channel?.id,
    client: args.client,
    respond: responseUrlOf(args) === undefined ? viewRespond(args, views) : args.respond,
  };
}

/**
 * Answers a click in a modal (the search shortcut) or the App Home, which have no response_url:
 * what would replace the message replaces the modal, anything else opens on top of it.
 *
 * @param args The click.
 * @returns A respond function over views.
 */
function viewRespond(args: ButtonArgs, views: ViewOwners): RespondFn {
  const respond = async (message: string | RespondArguments) => {
    const msg: { text?: string; blocks?: types.KnownBlock[]; replace_original?: boolean } =
      typeof message === 'string' ? { text: message } : (message as typeof msg);
    const view = modalOf(msg.blocks ?? [{ type: 'section', text: plain(escapeText(msg.text ?? '')) }]);
    // The modal a click came from is updated by the external_id the bot gave it for this user (the
    // guards checked it), never by the view id the payload names.
    const current = args.body.view?.type === 'modal' ? args.body.view.external_id : undefined;
    if (msg.replace_original && current)
      await args.client.views.update({ external_id: current, view: { ...view, external_id: current } });
    else {
      const opened = { ...view, external_id: views.tag(args.body.user.id) };
      if (args.body.view?.type === 'modal')
        await args.client.views.push({ trigger_id: args.body.trigger_id, view: opened });
      else await args.client.views.open({ trigger_id: args.body.trigger_id, view: opened });
    }
    return { status: 200 } as Awaited<ReturnType<RespondFn>>;
  };
  return respond;
}

/**
 * Where a click came from: a message (answered through its response_url) or a modal or the App
 * Home (answered with views; no response_url).
 *
 * @param args The click.
 * @returns The message's response_url, or undefined for a view.
 */
export function responseUrlOf(args: ButtonArgs): string | undefined {
  const url: unknown = (args.body as { response_url?: unknown }).response_url;
  return typeof url === 'string' && url !== '' ? url : undefined;
}

/**
 * The item id a button carries.
 *
 * @param args The click.
 * @returns The id, or undefined when the value is not one.
 */
export function itemIdOf(args: ButtonArgs): number | undefined {
  return readItemId(args.action.value ?? '');
}

/**
 * Reads an item id the way the core reads ids (canonical digits only).
 *
 * @param value The text.
 * @returns The id, or undefined when the text is not one.
 */
export function readItemId(value: string): number | undefined {
  return value.length <= MAX_ID_TEXT ? parseId(value) : undefined;
}

/** The longest text read as an item id (ids are safe integers: at most 16 digits). */
const MAX_ID_TEXT = 16;
