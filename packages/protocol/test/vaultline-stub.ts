/**
 * A small local HTTP server on 127.0.0.1 that answers like a Vaultline server where the protocol
 * core needs it: the keyless identification (`/info/version`), the key in `Authorization: Bearer`
 * (or the query, unless refused), and find/item over any percent-encoded text, case-insensitive,
 * capped at `maxResults`: with the `word-search` feature every word in the label, login (`svc`) or
 * path (`Team`), else the label containing the whole text. The real server lives in apps/vault-server, which depends on this
 * package; its own tests run the core against it.
 */

import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the stub received it. */
export interface StubRequest {
  url: string;
  authorization: string | undefined;
}

/** Options of {@link startVaultlineStub}. */
export interface StubOptions {
  apiKey: string;
  /** The features the identification reports. */
  features: string[];
  /** The result cap find/item applies and reports (`maxResults`). Default 1000. */
  maxResults?: number;
  /** Whether the identification carries `maxResults`. Default true. */
  reportMaxResults?: boolean;
  /**
   * The most ids read/items takes, reported as `maxIds` and enforced (more answer 400, as the
   * Vaultline server does). Default: neither reported nor enforced.
   */
  maxIds?: number;
  /** Refuse `?apikey=` (a server set to accept header keys only). */
  refuseQueryKey?: boolean;
  /** Item labels by id, all in folder 1. */
  labels?: Record<number, string>;
  /**
   * Answer the key as the Vaultline server answers a key of the `teampass` profile: `info/version`
   * asked with it gets TeamPass's `{"api-version":"2.1.5"}`, and find/item matches labels only.
   */
  teampassProfile?: boolean;
  /** The login `info/version` asked with the key says it acts as (a key of that user). */
  keyLogin?: string;
}

/** The running stub. */
export interface VaultlineStub {
  readonly url: string;
  readonly requests: StubRequest[];
  /** Answer the identification with this status and body instead (e.g. a 503 while starting). */
  identification: { status: number; body: string } | undefined;
  close(): Promise<void>;
}

function record(id: number, label: string) {
  return {
    id: String(id),
    label,
    description: '',
    login: 'svc',
    email: '',
    url: '',
    pw: `pw-${id}`,
    folder_id: '1',
    path: 'Team',
  };
}

/**
 * Starts the stub on an OS-picked port.
 *
 * @param options Its key, features and items.
 * @returns The running stub.
 */
export async function startVaultlineStub(options: StubOptions): Promise<VaultlineStub> {
  const requests: StubRequest[] = [];
  const labels = options.labels ?? { 1: 'Postgres prod', 2: 'postgres staging', 3: 'Café crème' };
  const maxResults = options.maxResults ?? 1000;
  const state: VaultlineStub = {
    url: '',
    requests,
    identification: undefined,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };

  function keyOf(req: IncomingMessage, url: URL): string | undefined {
    const header = req.headers.authorization;
    if (header?.startsWith('Bearer ')) return header.slice('Bearer '.length);
    if (options.refuseQueryKey) return undefined;
    return url.searchParams.get('apikey') ?? undefined;
  }

  const server: Server = createServer((req, res) => {
    const raw = req.url ?? '';
    requests.push({ url: raw, authorization: req.headers.authorization });
    res.setHeader('content-type', 'application/json');
    const url = new URL(raw, 'http://stub');
    const path = url.pathname.replace(/^\/api\/index\.php/, '');
    if (path === '/info/version') {
      if (options.teampassProfile && keyOf(req, url) === options.apiKey) {
        res.end(JSON.stringify({ 'api-version': '2.1.5' }));
        return;
      }
      if (state.identification) {
        res.statusCode = state.identification.status;
        res.end(state.identification.body);
        return;
      }
      res.end(
        JSON.stringify({
          server: 'vaultline',
          version: '9.9.9',
          features: options.features,
          ...(options.reportMaxResults === false ? {} : { maxResults }),
          ...(options.maxIds === undefined ? {} : { maxIds: options.maxIds }),
          ...(options.keyLogin !== undefined && keyOf(req, url) === options.apiKey
            ? { login: options.keyLogin }
            : {}),
        }),
      );
      return;
    }
    const key = keyOf(req, url);
    if (key !== options.apiKey) {
      res.statusCode = 401;
      // Echoes what it received, like TeamPass does: the client must redact it.
      res.end(JSON.stringify({ err: `Missing or unknown API key ${key ?? ''}.`, code: 'unauthorized' }));
      return;
    }
    const [, verb, object, first = '', second = ''] = path.split('/');
    if (verb === 'read' && object === 'items') {
      const ids = first.split(';').map(Number);
      if (options.maxIds !== undefined && ids.length > options.maxIds) {
        res.statusCode = 400;
        res.end(
          JSON.stringify({
            err: `Expected at most ${options.maxIds} ids in one call, received ${ids.length}.`,
            code: 'invalid_request',
          }),
        );
        return;
      }
      res.end(
        JSON.stringify(ids.filter((id) => labels[id] !== undefined).map((id) => record(id, labels[id]!))),
      );
      return;
    }
    if (verb === 'read' && object === 'folder') {
      res.end(JSON.stringify(Object.entries(labels).map(([id, label]) => record(Number(id), label))));
      return;
    }
    if (verb === 'find' && object === 'item') {
      const text = decodeURIComponent(second).toLowerCase();
      const words = text.split(/\s+/).filter((word) => word !== '');
      const matches = (label: string) =>
        options.features.includes('word-search') && !options.teampassProfile
          ? words.every((word) => [label.toLowerCase(), 'svc', 'team'].some((field) => field.includes(word)))
          : label.toLowerCase().includes(text);
      const found = Object.entries(labels)
        .filter(([, label]) => matches(label))
        .slice(0, maxResults)
        .map(([id, label]) => ({ ...record(Number(id), label), status: 'OK' }));
      res.end(found.length === 0 ? JSON.stringify({ err: 'No results' }) : JSON.stringify(found));
      return;
    }
    res.statusCode = 404;
    res.end(JSON.stringify({ err: 'Not found', code: 'not_found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  (state as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
