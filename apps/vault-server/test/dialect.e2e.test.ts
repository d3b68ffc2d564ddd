import { detectDialect } from '@vaultline/protocol';
import { createWireClient } from '@vaultline/protocol/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestVault, type TestVault } from '../src/testing.ts';
import { expectNoSecrets } from './support/helpers.ts';

// The protocol core's dialect detection against the real server: it must read a Vaultline server
// as the legacy dialect from its keyless identification alone, and a client must ask only once.
describe('dialect detection against the Vaultline server', () => {
  let vault: TestVault;
  const logLines: string[] = [];
  const seen: string[] = [];
  const recording: typeof fetch = (input, init) => {
    seen.push(new URL(input instanceof Request ? input.url : String(input)).pathname);
    return fetch(input, init);
  };

  beforeAll(async () => {
    vault = await startTestVault({ logLines });
    await vault.admin.createUser({ login: 'dialect-user' });
  });
  afterAll(async () => {
    await vault?.close();
    expectNoSecrets(logLines, [vault.adminKey]);
  });

  it('tells the legacy dialect from the identification, keyless, in one request', async () => {
    seen.length = 0;
    const found = await detectDialect({ baseUrl: vault.url, fetch: recording });
    expect(found).toMatchObject({
      detected: true,
      dialect: 'legacy',
      capabilities: {
        server: 'vaultline',
        dialect: 'legacy',
        credentials: 'api-key',
        files: true,
        otp: true,
        tags: false,
        urlLookup: false,
        otherUsers: true,
        enforcedRights: false,
      },
    });
    expect(found.evidence).toMatch(/^a Vaultline server identified itself \(version \d+\.\d+\.\d+/);
    expect(seen).toEqual(['/api/index.php/info/version']);
  });

  it('detects once per client, then speaks the legacy API with the key in a header', async () => {
    seen.length = 0;
    const client = createWireClient({ baseUrl: vault.url, auth: vault.adminKey, fetch: recording });
    await Promise.all([
      client.readUserFolders({ login: 'dialect-user' }),
      client.readUserFolders({ login: 'dialect-user' }),
      client.capabilities(),
    ]);
    // Keyless, who the server is; and once, for capabilities(), the rules this key gets (asked with it).
    expect(seen.filter((path) => path.endsWith('/info/version'))).toHaveLength(2);
    expect(seen.filter((path) => path.endsWith('/openapi.json'))).toHaveLength(0);
    expect(await client.capabilities()).toMatchObject({
      dialect: 'legacy',
      keyTransport: 'header',
      search: 'words',
    });
    expect(seen.filter((path) => path.endsWith('/info/version'))).toHaveLength(2);
    // An admin key acts for nobody: no login, and no user's rights the server enforces for it.
    expect(await client.identity()).toEqual({
      login: undefined,
      userId: undefined,
      administrator: undefined,
      api: undefined,
      enforced: false,
    });
    // read/otp exists here (capability otp): an item without a TOTP secret has no code.
    await expect(client.readOtp({ id: 999_999 })).rejects.toMatchObject({ code: 'not_found' });
    await client.dispose();
  });
});
