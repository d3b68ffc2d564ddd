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

/** A button click. */
export type ButtonClick = SlackActionMiddlewareArgs<BlockAction<ButtonAction>>;
/** The arguments of a button click handler. */
export type ButtonArgs = ButtonClick & AllMiddlewareArgs;

/**
 * Who clicked, and where.
 *
 * @param args The click.
 * @returns The caller.
 */
export function callerOf(args: ButtonArgs): Caller {
  return {
    slackUser: args.body.user.id,
    slackTeam: args.body.team?.id ?? args.body.user.team_id,
    channel: args.body.channel?.id,
    client: args.client,
    respond: responseUrlOf(args) === undefined ? viewRespond(args) : args.respond,
  };
}

/**
 * Answers a click in a modal (the search shortcut) or the App Home, which have no response_url:
 * what would replace the message replaces the modal, anything else opens on top of it.
 *
 * @param args The click.
 * @returns A respond function over views.
 */
function viewRespond(args: ButtonArgs): RespondFn {
  const respond = async (message: string | RespondArguments) => {
    const msg: { text?: string; blocks?: types.KnownBlock[]; replace_original?: boolean } =
      typeof message === 'string' ? { text: message } : (message as typeof msg);
    const view = modalOf(msg.blocks ?? [{ type: 'section', text: plain(escapeText(msg.text ?? '')) }]);
    const viewId = args.body.view?.id;
    if (msg.replace_original && viewId && args.body.view?.type === 'modal')
      await args.client.views.update({ view_id: viewId, view });
    else if (args.body.view?.type === 'modal')
      await args.client.views.push({ trigger_id: args.body.trigger_id, view });
    else await args.client.views.open({ trigger_id: args.body.trigger_id, view });
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
