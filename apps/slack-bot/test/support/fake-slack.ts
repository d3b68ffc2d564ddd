import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import { eventually } from './poll.ts';

/** One request the fake Slack received. */
export interface RecordedCall {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  /** The Web API arguments or the response_url body, parsed. */
  body: Record<string, unknown>;
  /** Set when the fake refused the call (429). */
  status?: number;
}

/** A Slack profile users.info answers with. */
export interface FakeProfile {
  email?: string;
  deleted?: boolean;
  is_bot?: boolean;
  /** Left out of the answer when undefined (as for some real accounts). Default true. */
  is_email_confirmed?: boolean | undefined;
  /** Default T1, the installing workspace. */
  team_id?: string;
  /** A user of another workspace seen through a shared channel. */
  is_stranger?: boolean;
  /** A guest. */
  is_restricted?: boolean;
  is_ultra_restricted?: boolean;
}

/** A local stand-in for Slack's side: the Web API, response_url endpoints and a Socket Mode server. */
export interface FakeSlack {
  readonly base: string;
  readonly apiUrl: string;
  readonly calls: RecordedCall[];
  readonly profiles: Map<string, FakeProfile>;
  /** User group id → its members, for usergroups.users.list. */
  readonly groups: Map<string, string[]>;
  /** The external_id of each view opened with one → the view id the fake gave it. */
  readonly externalIds: Map<string, string>;
  /** Slack's rate limit of chat.postMessage per channel (ms between posts); 0 turns it off. */
  channelIntervalMs: number;
  /**
   * Calls for which this returns true are recorded and never answered (a Slack that stalls), so
   * that a test can stop the bot while it waits.
   */
  hold: ((call: RecordedCall) => boolean) | undefined;
  /** What auth.test answers instead of the installing workspace T1 (an error, another team). */
  authAnswer: Record<string, unknown> | undefined;
  responseUrl(id: string): string;
  /** Bodies posted to one response_url, in order. */
  responses(id: string): Record<string, unknown>[];
  /** Waits for the first body posted to one response_url (at most `ms`, as {@link FakeSlack.waitFor}). */
  firstResponse(id: string, ms?: number): Promise<Record<string, unknown>>;
  apiCalls(method: string): RecordedCall[];
  waitFor<T>(probe: () => T | undefined | false, ms?: number): Promise<T>;
  /** Sends a Socket Mode envelope to the connected bot and resolves with its ack payload. */
  sendEnvelope(type: string, payload: Record<string, unknown>): Promise<Record<string, unknown> | undefined>;
  /** Resolves when a Socket Mode client is connected and has been greeted. */
  connected(): Promise<void>;
  close(): Promise<void>;
}

function parseBody(raw: string, contentType: string | undefined): Record<string, unknown> {
  if (raw === '') return {};
  if (contentType?.includes('json')) return JSON.parse(raw) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(raw)) out[key] = value;
  return out;
}

/**
 * Starts the fake Slack on 127.0.0.1.
 *
 * @returns It, listening.
 */
export async function startFakeSlack(): Promise<FakeSlack> {
  const calls: RecordedCall[] = [];
  const profiles = new Map<string, FakeProfile>();
  const groups = new Map<string, string[]>();
  const lastPost = new Map<string, number>();
  let posts = 0;
  let views = 0;
  const externalIds = new Map<string, string>();
  let base = '';
  let socket: WebSocket | undefined;
  let envelopes = 0;
  const acks = new Map<string, (payload: Record<string, unknown> | undefined) => void>();
  const connectedWaiters: (() => void)[] = [];

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '').split('?')[0] ?? '';
      const recorded: RecordedCall = {
        path,
        headers: req.headers,
        raw,
        body: parseBody(raw, req.headers['content-type']),
      };
      calls.push(recorded);
      if (fake.hold?.(recorded)) return;
      res.setHeader('content-type', 'application/json');
      const method = path.startsWith('/api/') ? path.slice('/api/'.length) : undefined;
      const body = calls.at(-1)?.body ?? {};
      switch (method) {
        case 'auth.test':
          if (fake.authAnswer) return res.end(JSON.stringify(fake.authAnswer));
          return res.end(
            JSON.stringify({
              ok: true,
              user_id: 'UBOT',
              bot_id: 'BBOT',
              team_id: 'T1',
              url: 'https://example.slack.com/',
            }),
          );
        case 'apps.connections.open':
          return res.end(JSON.stringify({ ok: true, url: `${base.replace('http', 'ws')}/socket` }));
        case 'chat.postMessage': {
          // Slack allows about one message per second per channel and answers 429 beyond it.
          // https://api.slack.com/methods/chat.postMessage#rate_limiting
          const channel = String(body.channel);
          const last = lastPost.get(channel) ?? Number.NEGATIVE_INFINITY;
          if (Date.now() - last < fake.channelIntervalMs) {
            const call = calls.at(-1);
            if (call) call.status = 429;
            res.statusCode = 429;
            res.setHeader('retry-after', '1');
            return res.end(JSON.stringify({ ok: false, error: 'ratelimited' }));
          }
          lastPost.set(channel, Date.now());
          posts += 1;
          const dm = channel.startsWith('U') || channel.startsWith('W') ? `D${channel}` : channel;
          return res.end(
            JSON.stringify({ ok: true, channel: dm, ts: `1700000000.${String(posts).padStart(6, '0')}` }),
          );
        }
        case 'usergroups.users.list':
          return res.end(JSON.stringify({ ok: true, users: groups.get(String(body.usergroup)) ?? [] }));
        case 'views.open':
        case 'views.push': {
          // Each opened view gets its own id; an external_id names it too.
          views += 1;
          const id = `VOPENED${views}`;
          const view =
            typeof body.view === 'string' ? (JSON.parse(body.view) as { external_id?: unknown }) : {};
          if (typeof view.external_id === 'string') externalIds.set(view.external_id, id);
          return res.end(JSON.stringify({ ok: true, view: { id, external_id: view.external_id } }));
        }
        case 'views.update': {
          const id = body.view_id ?? externalIds.get(String(body.external_id));
          if (id === undefined) return res.end(JSON.stringify({ ok: false, error: 'not_found' }));
          return res.end(JSON.stringify({ ok: true, view: { id } }));
        }
        case 'views.publish':
          return res.end(JSON.stringify({ ok: true, view: { id: `VHOME${String(body.user_id)}` } }));
        case 'users.info': {
          const profile = profiles.get(String(body.user));
          if (!profile) return res.end(JSON.stringify({ ok: false, error: 'user_not_found' }));
          return res.end(
            JSON.stringify({
              ok: true,
              user: {
                id: body.user,
                team_id: profile.team_id ?? 'T1',
                deleted: profile.deleted ?? false,
                is_bot: profile.is_bot ?? false,
                ...('is_email_confirmed' in profile
                  ? profile.is_email_confirmed === undefined
                    ? {}
                    : { is_email_confirmed: profile.is_email_confirmed }
                  : { is_email_confirmed: true }),
                ...(profile.is_stranger === undefined ? {} : { is_stranger: profile.is_stranger }),
                is_restricted: profile.is_restricted ?? false,
                is_ultra_restricted: profile.is_ultra_restricted ?? false,
                profile: { email: profile.email },
              },
            }),
          );
        }
        case undefined: {
          // A response_url named fail500-… or fail404-… answers with that status.
          const failing = /\/response\/fail(\d{3})-/.exec(path);
          if (failing) res.statusCode = Number(failing[1]);
          return res.end(failing ? 'no_service' : 'ok');
        }
        default:
          return res.end(JSON.stringify({ ok: true }));
      }
    });
  });
  const wss = new WebSocketServer({ server, path: '/socket' });
  wss.on('connection', (ws) => {
    socket = ws;
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as { envelope_id?: string; payload?: Record<string, unknown> };
      if (message.envelope_id) acks.get(message.envelope_id)?.(message.payload);
    });
    ws.send(
      JSON.stringify({
        type: 'hello',
        num_connections: 1,
        debug_info: { host: 'fake', approximate_connection_time: 3600 },
        connection_info: { app_id: 'A1' },
      }),
    );
    for (const waiter of connectedWaiters.splice(0)) waiter();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const fake: FakeSlack = {
    base,
    apiUrl: `${base}/api/`,
    calls,
    profiles,
    groups,
    externalIds,
    channelIntervalMs: 1000,
    hold: undefined,
    authAnswer: undefined,
    responseUrl: (id) => `${base}/response/${id}`,
    responses: (id) => calls.filter((call) => call.path === `/response/${id}`).map((call) => call.body),
    firstResponse: (id, ms) => fake.waitFor(() => fake.responses(id)[0], ms),
    apiCalls: (method) => calls.filter((call) => call.path === `/api/${method}` && call.status !== 429),
    waitFor: (probe, ms = 5000) => eventually(probe, ms, { every: 10, what: 'fake Slack: nothing arrived' }),
    sendEnvelope(type, payload) {
      if (!socket) throw new Error('no Socket Mode client connected');
      envelopes += 1;
      const envelopeId = `env-${envelopes}`;
      const acked = new Promise<Record<string, unknown> | undefined>((resolve) =>
        acks.set(envelopeId, resolve),
      );
      socket.send(JSON.stringify({ envelope_id: envelopeId, type, payload, accepts_response_payload: true }));
      return acked;
    },
    connected: () =>
      socket ? Promise.resolve() : new Promise<void>((resolve) => connectedWaiters.push(resolve)),
    async close() {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
