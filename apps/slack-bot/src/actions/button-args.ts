import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
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
    respond: args.respond,
  };
}

/**
 * The item id a button carries.
 *
 * @param args The click.
 * @returns The id, or undefined when the value is not one.
 */
export function itemIdOf(args: ButtonArgs): number | undefined {
  const value = args.action.value ?? '';
  return /^\d{1,15}$/.test(value) ? Number(value) : undefined;
}
