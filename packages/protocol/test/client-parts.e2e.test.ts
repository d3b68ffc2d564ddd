import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRedactor, REDACTED } from '../src/errors.ts';
import { createSender, type PreparedRequest } from '../src/legacy/attempt.ts';
import { mergeItemFields, readOneItem } from '../src/legacy/helpers.ts';
import { type ReplayServer, startReplayServer } from '../src/testing/teampass-replay-server.ts';
import type { RequestEvent } from '../src/transport/transport.ts';
import { createWireClient } from '../src/vault/wire-client.ts';

const KEY = 'partsK3yA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p';

describe('legacy/attempt and legacy/helpers against the replay server', () => {
  let server: ReplayServer;
  beforeAll(async () => {
    server = await startReplayServer({ apiKey: KEY });
  });
  afterAll(() => server.close());
  beforeEach(() => server.reset());

  function request(path: string): PreparedRequest {
    return {
      url: `${server.url}/api/index.php${path}?apikey=${KEY}`,
      displayUrl: `${server.url}/api/index.php${path}?apikey=${REDACTED}`,
      headers: {},
    };
  }

  it('sends one prepared request, reports it redacted, and maps error answers', async () => {
    const events: RequestEvent[] = [];
    const send = createSender({
      fetch: globalThis.fetch,
      timeoutMs: 2000,
      retries: 0,
      retryDelayMs: 1,
      maxResponseBytes: 1024 * 1024,
      redact: createRedactor([KEY]),
      onRequest: (event) => events.push(event),
    });
    const items = (await send('readItems', request('/read/items/10'), undefined, undefined)) as {
      id: number;
    }[];
    expect(items.map((item) => item.id)).toEqual([10]);
    const error = await send('readUserItems', request('/read/userpw/nobody'), undefined, undefined).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'not_found', serverMessage: 'User does not exist' });
    expect(events.map((event) => [event.endpoint, event.status, event.errorCode])).toEqual([
      ['readItems', 200, undefined],
      ['readUserItems', 200, 'not_found'],
    ]);
    expect(JSON.stringify(events)).not.toContain(KEY);
  });

  it('stops reading a body above the limit', async () => {
    const send = createSender({
      fetch: globalThis.fetch,
      timeoutMs: 2000,
      retries: 0,
      retryDelayMs: 1,
      maxResponseBytes: 1000,
      redact: createRedactor([KEY]),
    });
    server.fault({ reply: { streamBytes: 50_000 } });
    const error = await send('readItems', request('/read/items/10'), undefined, undefined).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'too_large' });
  });

  it('reads one item and merges fields into all nine values', async () => {
    const vault = createWireClient({ baseUrl: server.url, auth: KEY, legacy: { keyTransport: 'query' } });
    expect((await readOneItem(vault, 10)).label).toBe('db');
    await expect(readOneItem(vault, 999)).rejects.toMatchObject({ code: 'not_found' });
    await mergeItemFields(vault, 10, { url: 'https://new.example.com', login: undefined });
    const stored = server.items.get('10');
    expect(stored?.url).toBe('https://new.example.com');
    expect(stored?.login).toBe('admin');
    expect(stored?.pw).toBe('pw-db-seeded');
    await expect(mergeItemFields(vault, 12, { url: 'x' })).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
