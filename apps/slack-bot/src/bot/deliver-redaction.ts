import type { App } from '@slack/bolt';
import type { Config } from '../env.ts';
import type { Redaction } from '../redactions.ts';

/**
 * Posts redactions: a reveal's modal is updated through the Web API, a reveal's message through
 * its `response_url` (checked again: only Slack's hooks host ever gets a post from the bot).
 *
 * @param app The Bolt app, for its Web API client.
 * @param config The origins a `response_url` may point to.
 * @returns Posts one redaction; throws when it could not.
 */
export function redactionPoster(
  app: App,
  config: Pick<Config, 'responseUrlOrigins'>,
): (redaction: Redaction) => Promise<void> {
  return async (redaction) => {
    if (redaction.kind === 'view') {
      await app.client.views.update({ view_id: redaction.target, view: redaction.message as never });
      return;
    }
    if (!config.responseUrlOrigins.includes(new URL(redaction.target).origin))
      throw new Error('a response_url outside Slack’s hooks host was not posted to');
    const res = await fetch(redaction.target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(redaction.message),
    });
    if (!res.ok) throw new Error(`the response_url answered HTTP ${res.status}`);
  };
}
