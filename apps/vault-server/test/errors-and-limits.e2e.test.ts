import { describe, expect, it } from 'vitest';
import { clientOf, expectJsonError, expectVaultError, rawRequest, STORES } from './support/helpers.ts';
import { vaultForSuite } from './support/vault-for-suite.ts';

describe.each(STORES)('vault server errors and limits on %s', (store) => {
  const suite = vaultForSuite(store);

  describe('errors and limits', () => {
    it('answers 401 without echoing a wrong key, and for a missing key', async () => {
      const wrong = 'vlk_this-is-not-a-real-key-and-must-not-be-echoed-12345';
      const answer = await rawRequest(suite.vault.url, `/api/index.php/read/items/1?apikey=${wrong}`);
      const body = expectJsonError(answer, 401, 'unauthorized');
      expect(answer.headers['cache-control']).toBe('no-store');
      expect(answer.body).not.toContain(wrong);
      expect(body.err).not.toContain('this-is-not');
      expectJsonError(await rawRequest(suite.vault.url, '/api/index.php/read/items/1'), 401, 'unauthorized');
      await expectVaultError(clientOf(suite.vault, wrong).readItems({ ids: [1] }), 'unauthorized', 401);
    });

    it('answers on /api/ as well as /api/index.php/, and 404 JSON for unknown operations', async () => {
      const folder = await suite.admin.addFolder({ folder: { title: 'Short prefix' } });
      const short = await rawRequest(
        suite.vault.url,
        `/api/read/folder/${folder.id}?apikey=${suite.vault.adminKey}`,
      );
      expect(short.status).toBe(200);
      expectJsonError(
        await rawRequest(suite.vault.url, `/api/index.php/read/nothing/1?apikey=${suite.vault.adminKey}`),
        404,
        'invalid_request',
      );
      expectJsonError(await rawRequest(suite.vault.url, '/elsewhere'), 404, 'invalid_request');
    });

    it('answers 414 for a URL above the limit, even one larger than the header limit', async () => {
      const ids = Array.from({ length: 4_000 }, (_, i) => i + 1).join(';');
      expectJsonError(
        await rawRequest(suite.vault.url, `/api/index.php/read/items/${ids}?apikey=${suite.vault.adminKey}`),
        414,
        'too_large',
      );
      const huge = 'x'.repeat(200_000);
      const answer = await rawRequest(
        suite.vault.url,
        `/api/index.php/read/userpw/${huge}?apikey=${suite.vault.adminKey}`,
      );
      expectJsonError(answer, 414, 'too_large');
      expect((await fetch(`${suite.vault.url}/healthz`)).status).toBe(200);
    });

    it('answers 400 for more than 1000 ids in one call', async () => {
      const ids = Array.from({ length: 1_001 }, (_, i) => i + 1).join(';');
      expectJsonError(
        await rawRequest(suite.vault.url, `/api/index.php/read/items/${ids}?apikey=${suite.vault.adminKey}`),
        400,
        'invalid_request',
      );
    });

    it('serves /healthz and /readyz', async () => {
      expect(await (await fetch(`${suite.vault.url}/healthz`)).json()).toEqual({ status: 'ok' });
      expect(await (await fetch(`${suite.vault.url}/readyz`)).json()).toEqual({ status: 'ready' });
    });
  });
});
