import type { IncomingMessage, ServerResponse } from 'node:http';
import { HTTPReceiver, type HTTPReceiverOptions } from '@slack/bolt';

/**
 * Bolt's HTTP receiver behind a guard: requests to the events path reach Bolt only once the guard
 * has passed them (and set their `rawBody`, which Bolt then uses instead of reading the stream).
 */
export class GuardedHTTPReceiver extends HTTPReceiver {
  /**
   * @param options Bolt's options.
   * @param eventsPath The path the guard covers.
   * @param guard Answers refused requests itself; resolves true for the others.
   * @param onError Called when the guard itself fails (the request gets 500).
   */
  constructor(
    options: HTTPReceiverOptions,
    eventsPath: string,
    guard: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>,
    onError: (error: unknown) => void,
  ) {
    super(options);
    const inner = this.requestListener;
    this.requestListener = (req, res) => {
      const path = (req.url ?? '').split('?')[0];
      if (req.method !== 'POST' || path !== eventsPath) {
        inner(req, res);
        return;
      }
      guard(req, res).then(
        (passed) => {
          if (passed) inner(req, res);
        },
        (error: unknown) => {
          onError(error);
          if (!res.headersSent) {
            res.writeHead(500, { connection: 'close' });
            res.end();
          }
        },
      );
    };
  }
}
