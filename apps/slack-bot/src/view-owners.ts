import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Ties each modal the bot opens to the Slack user it opened it for, through the view's
 * `external_id`: `vl.<user>.<nonce>.<mac>`, the MAC keyed with a secret every instance of the bot
 * shares. A view submission or a click in a modal counts only from that user, and the bot updates a
 * modal by its `external_id`, never by a view id taken from the payload.
 */
export interface ViewOwners {
  /**
   * A new `external_id` for a modal opened for a user (unique: Slack wants one per view and team).
   *
   * @param user The Slack user id.
   * @returns The external_id.
   */
  tag(user: string): string;
  /**
   * Who a modal was opened for.
   *
   * @param externalId The view's `external_id`, as a payload carries it.
   * @returns The Slack user id, or undefined when the id is not one the bot made.
   */
  ownerOf(externalId: unknown): string | undefined;
}

const TAG = /^vl\.([UW][A-Z0-9]{2,30})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{43})$/;

/**
 * Creates the tags.
 *
 * @param secret A secret all instances share (the bot token); the MAC key is derived from it.
 * @returns They.
 */
export function createViewOwners(secret: string): ViewOwners {
  const key = createHmac('sha256', secret).update('vaultline-slack-bot view owner v1').digest();
  const mac = (user: string, nonce: string) =>
    createHmac('sha256', key).update(`${user}.${nonce}`).digest('base64url');
  return {
    tag(user) {
      const nonce = randomBytes(12).toString('base64url');
      return `vl.${user}.${nonce}.${mac(user, nonce)}`;
    },
    ownerOf(externalId) {
      if (typeof externalId !== 'string') return undefined;
      const match = TAG.exec(externalId);
      if (!match) return undefined;
      const [, user = '', nonce = '', given = ''] = match;
      const expected = Buffer.from(mac(user, nonce));
      const actual = Buffer.from(given);
      return actual.length === expected.length && timingSafeEqual(actual, expected) ? user : undefined;
    },
  };
}
