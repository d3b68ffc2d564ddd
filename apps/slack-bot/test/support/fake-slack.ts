import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

/** One request the fake Slack received. */
export interface RecordedCall {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  /** The Web API arguments or the response_url body, parsed. */
  body: Record<string, unknown>;
}

/** A Slack profile users.info answers with. */
export interface FakeProfile {
  email?: string;
  deleted?: boolean;
  is_bot?: boolean;
  is_email_confirmed?: boolean;
}

/** A local stand-in for Slack's side: the Web API, response_url endpoints and a Socket Mode server. */
export interface FakeSlack {
  readonly base: string;
  readonly apiUrl: string;
  readonly calls: RecordedCall[];
  readonly profiles: Map<string, FakeProfile>;
  responseUrl(id: string): string;
  /** Bodies posted to one response_url, in order. */
  responses(id: string): Record<string, unknown>[];
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
      calls.push({ path, headers: req.headers, raw, body: parseBody(raw, req.headers['content-type']) });
      res.setHeader('content-type', 'application/json');
      const method = path.startsWith('/api/') ? path.slice('/api/'.length) : undefined;
      const body = calls.at(-1)?.body ?? {};
      switch (method) {
        case 'auth.test':
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
        case 'chat.postMessage':
          return res.end(JSON.stringify({ ok: true, channel: body.channel, ts: '1700000000.000100' }));
        case 'views.open':
        case 'views.update':
          return res.end(JSON.stringify({ ok: true, view: { id: body.view_id ?? 'VREVEAL1' } }));
        case 'users.info': {
          const profile = profiles.get(String(body.user));
          if (!profile) return res.end(JSON.stringify({ ok: false, error: 'user_not_found' }));
          return res.end(
            JSON.stringify({
              ok: true,
              user: {
                id: body.user,
                deleted: profile.deleted ?? false,
                is_bot: profile.is_bot ?? false,
                is_email_confirmed: profile.is_email_confirmed ?? true,
                profile: { email: profile.email },
              },
            }),
          );
        }
        case undefined:
          return res.end('ok');
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
    responseUrl: (id) => `${base}/response/${id}`,
    responses: (id) => calls.filter((call) => call.path === `/response/${id}`).map((call) => call.body),
    apiCalls: (method) => calls.filter((call) => call.path === `/api/${method}`),
    async waitFor(probe, ms = 5000) {
      const started = Date.now();
      for (;;) {
        const value = probe();
        if (value !== undefined && value !== false) return value;
        if (Date.now() - started > ms) throw new Error(`fake Slack: nothing arrived within ${ms} ms`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
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
