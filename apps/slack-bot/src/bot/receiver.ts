import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Logger as BoltLogger, type Receiver, SocketModeReceiver } from '@slack/bolt';
import type { Redactor } from '@vaultline/protocol';
import type { Logger } from 'pino';
import type { AckFirst } from '../ack-first.ts';
import {
  ACK_MAX_DEFER_MS,
  EVENTS_PATH,
  HEALTH_PATH,
  MAX_REQUEST_BYTES,
  MAX_REQUEST_SKEW_SECONDS,
} from '../constants.ts';
import type { Config } from '../env.ts';
import { GuardedHTTPReceiver } from '../http/guarded-receiver.ts';
import { createRequestGuard } from '../http/request-guard.ts';
import { errorFields } from '../safe-error.ts';
import type { SeenSignatures } from '../store/seen-signatures.ts';
import { withPayloadCheck } from './payload-check.ts';
import type { ServedTeams } from './served-teams.ts';

/** What the receiver is built from. */
export interface ReceiverParts {
  log: Logger;
  bolt: BoltLogger;
  redact: Redactor;
  ackFirst: AckFirst;
  seen: SeenSignatures;
  /** The workspaces served, settled at start. */
  teams: ServedTeams;
}

/**
 * The receiver the configuration asks for: Socket Mode, or Bolt's HTTP receiver behind the
 * request checks (size, timestamp, signature, replay, allow-lists, response_url origins); in both,
 * payloads outside Slack's bounds are acknowledged and dropped before Bolt sees them.
 *
 * @param config The settings.
 * @param parts The logger, the ack gate and the signatures seen lately.
 * @returns The receiver.
 */
export function createReceiver(config: Config, parts: ReceiverParts): Receiver {
  return withPayloadCheck(slackReceiver(config, parts), parts.log);
}

function slackReceiver(config: Config, parts: ReceiverParts): Receiver {
  const { log, bolt, redact, ackFirst, seen } = parts;
  if (config.mode === 'socket') {
    const clientOptions = config.slackApiUrl ? { slackApiUrl: config.slackApiUrl } : {};
    return new SocketModeReceiver({
      appToken: config.appToken,
      logger: bolt,
      installerOptions: { clientOptions },
    });
  }
  return new GuardedHTTPReceiver(
    {
      signingSecret: config.signingSecret,
      endpoints: EVENTS_PATH,
      bodyLimit: MAX_REQUEST_BYTES,
      logger: bolt,
      customRoutes: [
        {
          path: HEALTH_PATH,
          method: 'GET',
          handler: (_req, res) => {
            res.writeHead(200, { 'content-type': 'text/plain' });
            res.end('ok');
          },
        },
      ],
    },
    EVENTS_PATH,
    withArrival(
      ackFirst,
      createRequestGuard({
        signingSecret: config.signingSecret,
        maxBytes: MAX_REQUEST_BYTES,
        maxSkewSeconds: MAX_REQUEST_SKEW_SECONDS,
        seen,
        responseUrlOrigins: config.responseUrlOrigins,
        teamIds: parts.teams.list,
        appIds: config.appIds,
        logger: log,
      }),
    ),
    (error) => log.error(errorFields(error, redact), 'request check failed'),
  );
}

/**
 * Notes each request from its arrival until its answer is written, for at most
 * {@link ACK_MAX_DEFER_MS}: the work that follows acks waits while requests are coming in or
 * waiting for their ack, and a slow or hostile request cannot hold it back for longer.
 */
function withArrival(
  ackFirst: AckFirst,
  guard: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>,
): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  return (req, res) => {
    const answered = ackFirst.open();
    const cap = setTimeout(answered, ACK_MAX_DEFER_MS);
    cap.unref();
    res.once('close', () => {
      clearTimeout(cap);
      answered();
    });
    return guard(req, res);
  };
}
