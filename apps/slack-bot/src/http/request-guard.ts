import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { SeenSignatures } from '../store/seen-signatures.ts';

/** Options of {@link createRequestGuard}. */
export interface RequestGuardOptions {
  signingSecret: string;
  /** The largest body read; larger ones are refused from their `content-length`, or cut off. */
  maxBytes: number;
  /** How far (s) a request's timestamp may be from now, either way. */
  maxSkewSeconds: number;
  /** The signatures seen lately, shared by every instance. */
  seen: SeenSignatures;
  /** The origins `response_url`s may point to (Slack's hooks host). */
  responseUrlOrigins: readonly string[];
  /** Workspaces whose requests are served, as settled at start (none before). */
  teamIds: () => readonly string[];
  /** Slack apps whose requests are served; all when undefined. */
  appIds: readonly string[] | undefined;
  logger: Logger;
  now?: () => number;
}

/** A request that passed: its body as read and checked. */
export interface CheckedRequest extends IncomingMessage {
  rawBody: Buffer;
}

const SIGNATURE = /^v0=[0-9a-f]{64}$/;

function refuse(res: ServerResponse, status: number): false {
  // `connection: close`: the rest of a refused body is never read.
  res.writeHead(status, { connection: 'close', 'content-type': 'text/plain' });
  res.end();
  return false;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

function readCapped(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.off('data', onData);
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/** What a Slack body says about where it comes from and where answers go. */
interface Origin {
  type: string | undefined;
  teamId: string | undefined;
  appId: string | undefined;
  responseUrls: string[];
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

function originOf(body: Buffer, contentType: string | undefined): Origin | undefined {
  try {
    const text = body.toString('utf8');
    let data: Record<string, unknown>;
    if (contentType?.startsWith('application/x-www-form-urlencoded')) {
      const form = new URLSearchParams(text);
      const payload = form.get('payload');
      data = payload === null ? Object.fromEntries(form) : record(JSON.parse(payload));
    } else {
      data = record(JSON.parse(text));
    }
    const team = record(data.team);
    const user = record(data.user);
    const urls = [str(data.response_url)];
    if (Array.isArray(data.response_urls))
      for (const entry of data.response_urls) urls.push(str(record(entry).response_url));
    return {
      type: str(data.type),
      teamId: str(data.team_id) ?? str(team.id) ?? str(user.team_id),
      appId: str(data.api_app_id),
      responseUrls: urls.filter((url): url is string => url !== undefined),
    };
  } catch {
    return undefined;
  }
}

function allowedUrl(url: string, origins: readonly string[]): boolean {
  try {
    return origins.includes(new URL(url).origin);
  } catch {
    return false;
  }
}

/**
 * Creates the checks every request to the events path passes before Bolt sees it, cheapest
 * first: its declared size, its timestamp (±`maxSkewSeconds`), the shape of its signature — all
 * before a byte of the body is read — then the body, read up to the cap, its HMAC, whether the
 * signature was seen before (by any instance), and where it comes from and answers go.
 *
 * @see https://api.slack.com/authentication/verifying-requests-from-slack
 * @param options The secret, limits and allow-lists.
 * @returns A check that answers refused requests itself and resolves true for the rest, with
 *   `rawBody` set for Bolt.
 */
export function createRequestGuard(
  options: RequestGuardOptions,
): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  const now = options.now ?? Date.now;
  const keepMs = options.maxSkewSeconds * 2 * 1000;
  return async (req, res) => {
    const declared = Number(header(req, 'content-length') ?? '0');
    if (!Number.isFinite(declared) || declared > options.maxBytes) return refuse(res, 413);
    const timestamp = header(req, 'x-slack-request-timestamp') ?? '';
    const signature = header(req, 'x-slack-signature') ?? '';
    const seconds = /^\d{1,12}$/.test(timestamp) ? Number(timestamp) : Number.NaN;
    if (!(Math.abs(now() / 1000 - seconds) <= options.maxSkewSeconds) || !SIGNATURE.test(signature)) {
      options.logger.warn({ reason: 'timestamp or signature' }, 'refused an unsigned or stale request');
      return refuse(res, 401);
    }
    const body = await readCapped(req, options.maxBytes);
    if (body === undefined) return refuse(res, 413);
    const expected = createHmac('sha256', options.signingSecret)
      .update(`v0:${timestamp}:`)
      .update(body)
      .digest();
    const given = Buffer.from(signature.slice(3), 'hex');
    if (!timingSafeEqual(expected, given)) {
      options.logger.warn({ reason: 'signature' }, 'refused a request with a bad signature');
      return refuse(res, 401);
    }
    if (!(await options.seen.claim(signature, keepMs))) {
      options.logger.warn({ reason: 'replay' }, 'refused a request seen before');
      return refuse(res, 401);
    }
    const origin = originOf(body, header(req, 'content-type'));
    if (origin === undefined) return refuse(res, 400);
    if (
      origin.type !== 'url_verification' &&
      (!(origin.teamId && options.teamIds().includes(origin.teamId)) ||
        (options.appIds && !(origin.appId && options.appIds.includes(origin.appId))))
    ) {
      options.logger.warn(
        { reason: 'allow-list', team: origin.teamId, app: origin.appId },
        'refused a request from another workspace or app',
      );
      return refuse(res, 403);
    }
    if (!origin.responseUrls.every((url) => allowedUrl(url, options.responseUrlOrigins))) {
      options.logger.warn({ reason: 'response_url' }, 'refused a request whose response_url is not Slack’s');
      return refuse(res, 400);
    }
    (req as CheckedRequest).rawBody = body;
    return true;
  };
}
