/**
 * Every row of the endpoint table, walked: the domain methods `DOMAIN_METHODS` names for it send
 * it (against TeamPass 2's fake, over HTTP), and the conformance suite has a step for it. A row
 * added to the table fails here, or fails to compile, until each has it (CONTRIBUTING.md, "Adding
 * an operation").
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STEPS } from '../src/conformance/steps.ts';
import { isVaultError } from '../src/errors.ts';
import { ENDPOINT_NAMES, type EndpointName } from '../src/legacy/endpoints.ts';
import { type ReplayServer, startReplayServer } from '../src/testing/teampass-replay-server.ts';
import { createVaultClient } from '../src/vault/client.ts';
import { DOMAIN_METHODS } from '../src/vault/operations.ts';
import type { VaultClient } from '../src/vault/types.ts';

const KEY = 'replayK3yA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5';

type NamedMethod = (typeof DOMAIN_METHODS)[EndpointName][number];

let labels = 0;
const label = () => `operations-${++labels}`;

/** One call of each domain method the table names, on the fake's seeded folders (1, 2) and items (10, 11). */
const CALLS: { readonly [M in NamedMethod]: (vault: VaultClient) => Promise<unknown> } = {
  'items.get': (vault) => vault.items.get(10),
  'items.getMany': (vault) => vault.items.getMany([10, 11]),
  'items.list': (vault) => vault.items.list(1).all(),
  'items.search': (vault) => vault.items.search('db', { fallback: 'labels' }),
  'items.create': (vault) => vault.items.create({ label: label(), password: 'pw', folderId: 1 }),
  'items.update': (vault) => vault.items.update(10, { login: 'changed' }),
  'items.delete': async (vault) => {
    const { id } = await vault.items.create({ label: label(), password: 'pw', folderId: 1 });
    await vault.items.delete(id);
  },
  'items.otp': (vault) => vault.items.otp(10),
  'folders.list': (vault) => vault.folders.list(),
  'folders.create': (vault) => vault.folders.create({ title: label() }),
  'folders.update': (vault) =>
    vault.folders.update(2, { title: label(), complexityLevel: 0, renewalPeriod: 0 }),
  'folders.delete': async (vault) => {
    const { id } = await vault.folders.create({ title: label() });
    await vault.folders.delete(id);
  },
  'files.upload': (vault) => vault.files.upload(10, { file: new Uint8Array([1, 2]), fileName: 'a.txt' }),
  'files.list': (vault) => vault.files.list(10),
  'files.download': async (vault) => {
    // TeamPass's add/file names no new file: the listing does.
    await vault.files.upload(10, { file: new Uint8Array([3]), fileName: 'b.txt' });
    const [file] = await vault.files.list(10);
    await vault.files.download(file!.id);
  },
};

let teampass2: ReplayServer;
beforeAll(async () => {
  teampass2 = await startReplayServer({ apiKey: KEY });
});
afterAll(() => teampass2.close());

/** What a domain method sent, by operation name, and what it failed with. */
async function run(method: NamedMethod): Promise<{ sent: string[]; error: unknown }> {
  const sent: string[] = [];
  const vault = createVaultClient({
    baseUrl: teampass2.url,
    auth: { apiKey: KEY, login: 'alice' },
    retry: { retries: 0 },
    onRequest: (event) => sent.push(event.endpoint),
  });
  try {
    await CALLS[method](vault);
    return { sent, error: undefined };
  } catch (error) {
    return { sent, error };
  } finally {
    await vault.dispose();
  }
}

const pairs = ENDPOINT_NAMES.flatMap((name) =>
  DOMAIN_METHODS[name].map((method): [EndpointName, NamedMethod] => [name, method]),
);

describe('the domain client', () => {
  it('names the domain methods of every operation of the table, and only of those', () => {
    expect(Object.keys(DOMAIN_METHODS).sort()).toEqual([...ENDPOINT_NAMES].sort());
  });

  it.each(pairs)('reaches %s through %s', async (name, method) => {
    const { sent, error } = await run(method);
    // TeamPass 2 has no one-time codes: the legacy client refuses read/otp by name, sending nothing.
    if (name === 'readOtp') {
      expect(isVaultError(error, 'unsupported') && error.message.startsWith(`${name}:`), String(error)).toBe(
        true,
      );
      expect(sent).toEqual([]);
      return;
    }
    expect(error).toBeUndefined();
    expect(sent, `${method} should send ${name} (src/vault/client.ts)`).toContain(name);
  });
});

describe('the conformance suite', () => {
  it('has a step for every operation of the table', () => {
    const stepped = STEPS.flatMap((step) => ('endpoint' in step ? [step.endpoint] : []));
    expect([...new Set(stepped)].sort(), 'a step per operation in src/conformance/steps.ts').toEqual(
      [...ENDPOINT_NAMES].sort(),
    );
  });
});
