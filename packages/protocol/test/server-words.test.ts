import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { VaultClient } from '../src/client/types.ts';
import { createVaultClient } from '../src/create-client.ts';
import { REDACTED, serverWordsOf, VaultError, withServerWords } from '../src/errors.ts';
import {
  NON_JSON_BODIES,
  type ReplayServer,
  startReplayServer,
} from '../src/testing/teampass-replay-server.ts';

const KEY = 'wordsK3yA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p';
const NOT_FOUND = 'not found in the vault (it may have been deleted)';

let server: ReplayServer;
let vault: VaultClient;

beforeAll(async () => {
  server = await startReplayServer({ apiKey: KEY });
  vault = createVaultClient({ baseUrl: server.url, apiKey: KEY, retries: 0, keyTransport: 'query' });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

async function failure(promise: Promise<unknown>): Promise<VaultError> {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(VaultError);
  return error as VaultError;
}

describe("the server's own words", () => {
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
    server.fault({
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
    server.fault({
      reply: { status: 200, body: JSON.stringify({ err: `bad key ${KEY}\n${'x'.repeat(500)}` }) },
      times: 1,
    });
    const error = await failure(vault.readItems({ ids: [1] }));
    expect(serverWordsOf(error)).toBe(`bad key ${REDACTED}`);
    expect(error.message).not.toContain(KEY);
    server.fault({ reply: { status: 200, body: JSON.stringify({ err: 'y'.repeat(500) }) } });
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
    server.fault({ reply: { status: 200, body: NON_JSON_BODIES.html } });
    const html = await failure(vault.readItems({ ids: [1] }));
    expect(serverWordsOf(html)).toMatch(/^<br \/> <b>Fatal error/);
  });
});
