import type { Middleware } from '@slack/bolt';
import type { ButtonClick } from './button-args.ts';

/**
 * "Open URL": Slack opens the link itself; the click still arrives and must be acknowledged.
 *
 * @returns The handler.
 */
export function openUrlAction(): Middleware<ButtonClick> {
  return async ({ ack }) => {
    await ack();
  };
}
