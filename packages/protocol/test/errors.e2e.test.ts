import { inspect } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WireClient } from '../src/client/types.ts';
import {
  REDACTED,
  serverWordsOf,
  VAULT_ERROR_CODES,
  VaultError,
  type VaultErrorCode,
  withServerWords,
} from '../src/errors.ts';
import {
  NON_JSON_BODIES,
  type ReplayServer,
  startReplayServer,
} from '../src/testing/teampass-replay-server.ts';
import { createWireClient } from '../src/vault/wire-client.ts';

// Errors the client raises from what a server answered over HTTP (the TeamPass replay server):
// the server's own words kept next to a plain sentence, and the API key never leaking. The
// VaultError type itself is tested next to it, in src/errors.test.ts.

describe("the server's own words", () => {
  const KEY = 'wordsK3yA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p';
  const NOT_FOUND = 'not found in the vault (it may have been deleted)';

  let teampass: ReplayServer;
  let vault: WireClient;

  beforeAll(async () => {
    teampass = await startReplayServer({ apiKey: KEY });
    vault = createWireClient({
      baseUrl: teampass.url,
      auth: KEY,
      retry: { retries: 0 },
      legacy: { keyTransport: 'query' },
    });
  });
  afterAll(() => teampass.close());
  beforeEach(() => teampass.reset());

  async function failure(promise: Promise<unknown>): Promise<VaultError> {
    const error = await promise.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VaultError);
    return error as VaultError;
  }

  it('keeps "User does not exist" next to the plain sentence', async () => {
    const error = await failure(vault.readUserItems({ login: 'nobody' }));
    expect(error.code).toBe('not_found');
    expect(error.message).toBe('read/userpw failed: User does not exist (HTTP 200).');
    expect(serverWordsOf(error)).toBe('User does not exist');
    expect(withServerWords(`${NOT_FOUND}.`, error)).toBe(
      `${NOT_FOUND}. The vault said: "User does not exist".`,
    );
    expect(withServerWords(NOT_FOUND, error)).toBe(`${NOT_FOUND}. The vault said: "User does not exist".`);
  });

  it('shows the start of a database error that is not JSON, the 4-byte refusal for one', async () => {
    teampass.fault({
      reply: {
        status: 200,
        body: "Incorrect string value: '\\xF0\\x9F\\x98\\x80' for column `teampass`.`teampass_items`.`label` at row 1",
      },
    });
    const error = await failure(vault.addItem({ item: { label: 'emoji 😀', password: 'x', folderId: 1 } }));
    expect(error.code).toBe('invalid_response');
    expect(serverWordsOf(error)).toMatch(/^Incorrect string value: '\\xF0\\x9F\\x98\\x80' for column/);
  });

  it('cuts long words to one short line and redacts the key', async () => {
    teampass.fault({
      reply: { status: 200, body: JSON.stringify({ err: `bad key ${KEY}\n${'x'.repeat(500)}` }) },
      times: 1,
    });
    const error = await failure(vault.readItems({ ids: [1] }));
    expect(serverWordsOf(error)).toBe(`bad key ${REDACTED}`);
    expect(error.message).not.toContain(KEY);
    teampass.fault({ reply: { status: 200, body: JSON.stringify({ err: 'y'.repeat(500) }) } });
    const long = await failure(vault.readItems({ ids: [1] }));
    expect(serverWordsOf(long)).toHaveLength(160);
    expect(serverWordsOf(long)?.endsWith('…')).toBe(true);
    expect(long.message.length).toBeLessThan(260);
    expect(serverWordsOf(long, undefined, 20)).toHaveLength(20);
  });

  it('redacts with the caller redactor too, and says nothing when the server said nothing', async () => {
    const error = new VaultError('not_found', 'x', { serverMessage: 'secret-thing gone' });
    expect(serverWordsOf(error, (text) => text.replace('secret-thing', REDACTED))).toBe(`${REDACTED} gone`);
    expect(serverWordsOf(new VaultError('timeout', 'late'))).toBeUndefined();
    expect(serverWordsOf(new VaultError('server', 'x', { excerpt: '  \n ' }))).toBeUndefined();
    expect(serverWordsOf(new Error('plain'))).toBeUndefined();
    expect(withServerWords('Timed out.', new VaultError('timeout', 'late'))).toBe('Timed out.');
    teampass.fault({ reply: { status: 200, body: NON_JSON_BODIES.html } });
    const html = await failure(vault.readItems({ ids: [1] }));
    expect(serverWordsOf(html)).toMatch(/^<br \/> <b>Fatal error/);
  });
});

/** A TeamPass-like key, and one with characters that percent-encoding changes. */
const KEYS = ['tpR3dactMe0123456789abcdefghijklmnopqrs', 'k3y+with/slash=and;semi colon&amp'];

let server: ReplayServer;
let closedUrl = '';

beforeAll(async () => {
  server = await startReplayServer({ apiKey: 'the-server-key-is-another-one' });
  const closed = await startReplayServer({ apiKey: 'x' });
  closedUrl = closed.url;
  await closed.close();
});
afterAll(() => server.close());

interface Scenario {
  code: VaultErrorCode;
  name: string;
  /** Produces the error; `key` is the client's key, echoed into bodies wherever a server could. */
  run: (vault: WireClient, key: string) => Promise<unknown>;
  /** Whether the error comes from an HTTP exchange (so it carries a URL). */
  http: boolean;
}

function answer(status: number, body: string, times = 1) {
  server.fault({ reply: { status, body }, times });
}

const item = { label: 'l', password: 'p', folderId: 1 };

const scenarios: Scenario[] = [
  {
    code: 'unauthorized',
    name: 'the real wrong-key answer, which echoes the key',
    run: (vault) => vault.readItems({ ids: [1] }),
    http: true,
  },
  {
    code: 'unauthorized',
    name: 'apikey missing (HTTP 500, on a write)',
    run: (vault, key) => {
      answer(500, JSON.stringify({ err: `Something happen ... but what ? ${key}` }));
      return vault.addItem({ item });
    },
    http: true,
  },
  {
    code: 'forbidden',
    name: 'IP not allowed',
    run: (vault, key) => {
      answer(405, JSON.stringify({ err: `Ip address not allowed. apikey=${key}` }));
      return vault.deleteItems({ ids: [1] });
    },
    http: true,
  },
  {
    code: 'not_found',
    name: 'No data exists with a code',
    run: (vault, key) => {
      answer(200, JSON.stringify({ err: `No data exists ${key}`, code: 'NO_DATA_EXIST' }));
      return vault.updateItem({ id: 1, item });
    },
    http: true,
  },
  {
    code: 'not_found',
    name: 'getItem of a missing item',
    run: (vault, key) => {
      answer(200, JSON.stringify({ err: 'No results', echo: key }));
      return vault.getItem(1);
    },
    http: false,
  },
  {
    code: 'duplicate_label',
    name: 'label already used',
    run: (vault, key) => {
      answer(200, JSON.stringify({ err: `Label already exists (${key})` }));
      return vault.addItem({ item });
    },
    http: true,
  },
  {
    code: 'invalid_request',
    name: 'URL format, with the URL echoed',
    run: (vault, key) => {
      answer(200, JSON.stringify({ err: `URL format is not following requirements: /x?apikey=${key}` }));
      return vault.readUserFolders({ login: 'alice' });
    },
    http: true,
  },
  {
    code: 'invalid_request',
    name: 'a bad id refused by the client',
    run: (vault) => vault.readItems({ ids: [-1] }),
    http: false,
  },
  {
    code: 'invalid_request',
    name: 'an empty password on read-merge-write',
    run: (vault) => {
      server.fault({
        reply: { body: JSON.stringify([{ id: '1', label: 'x', pw: '', folder_id: '1' }]) },
        times: 1,
      });
      return vault.updateItemFields(1, { label: 'y' });
    },
    http: false,
  },
  {
    code: 'api_disabled',
    name: 'API switched off',
    run: (vault, key) => {
      answer(200, JSON.stringify({ err: `API access not allowed. ${key}` }));
      return vault.readUserItems({ login: 'alice' });
    },
    http: true,
  },
  {
    code: 'too_large',
    name: 'a write URL above the limit',
    run: (vault) => vault.addItem({ item: { ...item, description: 'x'.repeat(9_000) } }),
    http: true,
  },
  {
    code: 'too_large',
    name: 'a response above maxResponseBytes',
    run: (vault, key) => {
      answer(200, JSON.stringify([key.repeat(200)]));
      return vault.readItems({ ids: [1] });
    },
    http: true,
  },
  {
    code: 'too_large',
    name: 'password too long',
    run: (vault, key) => {
      answer(200, JSON.stringify({ err: `Password is too long ${key}` }));
      return vault.addItem({ item });
    },
    http: true,
  },
  {
    code: 'rate_limited',
    name: 'HTTP 429',
    run: (vault, key) => {
      // Waited out twice (instantly, see clientFor), then given up: three answers.
      answer(429, JSON.stringify({ err: `Too many requests for ${key}` }), 3);
      return vault.readItems({ ids: [1] });
    },
    http: true,
  },
  {
    code: 'invalid_response',
    name: 'a PHP fatal as HTML that prints the key',
    run: (vault, key) => {
      answer(200, `<br />\n<b>Fatal error</b>: in api.php?apikey=${key} and ${key}`);
      return vault.readItems({ ids: [1] });
    },
    http: true,
  },
  {
    code: 'invalid_response',
    name: 'a body of the wrong shape that holds the key',
    run: (vault, key) => {
      answer(200, JSON.stringify([{ id: 'not-a-number', label: key, pw: key }]));
      return vault.readItems({ ids: [1] });
    },
    http: true,
  },
  {
    code: 'invalid_response',
    name: 'an empty body',
    run: (vault) => {
      answer(200, '');
      return vault.readItems({ ids: [1] });
    },
    http: true,
  },
  {
    code: 'network',
    name: 'a dropped connection',
    run: (vault) => {
      server.fault({ reply: { destroy: true }, times: 1 });
      return vault.deleteItems({ ids: [1] });
    },
    http: true,
  },
  {
    code: 'timeout',
    name: 'late headers',
    run: (vault) => {
      server.fault({ reply: { delayMs: 4_000, body: '[]' }, times: 1 });
      return vault.deleteItems({ ids: [1] });
    },
    http: true,
  },
  {
    code: 'timeout',
    name: 'a stalled body',
    run: (vault, key) => {
      server.fault({ reply: { body: `[${JSON.stringify(key)}]`, stallAfterBytes: 3 }, times: 1 });
      return vault.readItems({ ids: [1] });
    },
    http: true,
  },
  {
    code: 'aborted',
    name: 'a caller abort',
    run: (vault) => {
      const controller = new AbortController();
      // Cancelled once the server holds the request: cancelled before it left (after a fixed
      // delay, on a loaded machine), it would leave its fault to the next scenario.
      server.fault({
        reply: () => {
          setImmediate(() => controller.abort());
          return { delayMs: 4_000, body: '[]' };
        },
        times: 1,
      });
      return vault.readItems({ ids: [1] }, { signal: controller.signal });
    },
    http: true,
  },
  {
    code: 'unsupported',
    name: 'a one-time code asked of the legacy API, which has none',
    run: (vault) => vault.readOtp({ id: 1 }),
    http: false,
  },
  {
    code: 'server',
    name: 'HTTP 500 with an HTML body that prints the key',
    run: (vault, key) => {
      answer(500, `<html>Internal error for key ${key}</html>`);
      return vault.addFolder({ folder: { title: 't' } });
    },
    http: true,
  },
];

function clientFor(key: string): WireClient {
  return createWireClient({
    baseUrl: server.url,
    auth: key,
    retry: { retries: 0 },
    clock: { sleep: async () => {} },
    // Generous: only the two timeout scenarios should time out, even on a loaded CI machine.
    timeoutMs: 1_500,
    maxResponseBytes: 2_000,
  });
}

function expectNoKey(error: VaultError, key: string): void {
  const variants = [key, encodeURIComponent(key)];
  const places: Record<string, string> = {
    message: error.message,
    stack: error.stack ?? '',
    url: error.url ?? '',
    serverMessage: error.serverMessage ?? '',
    excerpt: error.excerpt ?? '',
    json: JSON.stringify(error),
    inspect: inspect(error, { depth: 10 }),
    cause: String(error.cause),
    causeInspect: inspect(error.cause, { depth: 10 }),
  };
  for (const [place, text] of Object.entries(places)) {
    for (const variant of variants) expect(text, `${error.code} ${place}`).not.toContain(variant);
  }
}

describe('the API key never leaks from an error', () => {
  it('covers every error code', () => {
    const covered = new Set([...scenarios.map((scenario) => scenario.code), 'network']);
    expect([...VAULT_ERROR_CODES].filter((code) => !covered.has(code))).toEqual([]);
  });

  describe.each(KEYS)('with the key %j', (key) => {
    it.each(scenarios.map((scenario) => [`${scenario.code}: ${scenario.name}`, scenario] as const))(
      '%s',
      async (_, scenario) => {
        let caught: unknown;
        try {
          await scenario.run(clientFor(key), key);
        } catch (error) {
          caught = error;
        }
        expect(caught).toBeInstanceOf(VaultError);
        const error = caught as VaultError;
        expect(error.code).toBe(scenario.code);
        expectNoKey(error, key);
        if (scenario.http) expect(error.url).toMatch(/\?apikey=\[REDACTED\]$/);
      },
    );

    it('network: nothing listening', async () => {
      const error: unknown = await createWireClient({ baseUrl: closedUrl, auth: key, retry: { retries: 0 } })
        .readItems({ ids: [1] })
        .catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(VaultError);
      expect((error as VaultError).code).toBe('network');
      expectNoKey(error as VaultError, key);
    });
  });

  it('proves the scenarios really put the key on the wire and in bodies', async () => {
    const key = KEYS[0]!;
    server.reset();
    answer(200, JSON.stringify({ err: `Label already exists (${key})` }));
    await clientFor(key)
      .addItem({ item })
      .catch(() => undefined);
    expect(server.requests[0]?.url).toContain(`?apikey=${key}`);
    server.reset();
  });
});
