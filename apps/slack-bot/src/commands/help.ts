import type { Middleware, SlackCommandMiddlewareArgs } from '@slack/bolt';
import { HELP_TEXT, noteMrkdwn } from '../blocks.ts';

/**
 * `/vault help`: answered in the ack itself; nothing to look up.
 *
 * @returns The handler.
 */
export function helpCommand(): Middleware<SlackCommandMiddlewareArgs> {
  return async ({ ack }) => {
    await ack(noteMrkdwn(HELP_TEXT));
  };
}
