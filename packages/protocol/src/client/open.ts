/**
 * The dialect pick: `openWireClient` hands out one of two implementations of the one `WireClient`
 * interface, the legacy client (`legacy/client.ts`) or the TeamPass 3 adapter
 * (`teampass3/adapter.ts`), or, with `dialect: 'auto'`, the client that detects the dialect once
 * (`auto-dialect.ts`). Under `createVaultClient`'s domain client (`vault/client.ts`) and behind
 * `createWireClient`.
 *
 * @module
 */

import * as v from 'valibot';
import { VaultError } from '../errors.ts';
import { validateBaseUrl } from '../internal/base-url.ts';
import { createLegacyVaultClient } from '../legacy/client.ts';
import { type ServerInfo, ServerInfoSchema } from '../legacy/server-info.ts';
import { createTeamPass3Client } from '../teampass3/adapter.ts';
import { createAutoDialectClient } from './auto-dialect.ts';
import type { ClientSettings, WireClient } from './types.ts';

/**
 * Creates the wire client of a vault: the Vaultline server, TeamPass 2 (the legacy API) or
 * TeamPass 3, with `createVaultClient`'s settings (`vault/options.ts`).
 *
 * With `dialect: 'auto'` (the default) one keyless request before the first call tells the
 * dialect (see `detectDialect`), once per client; pass the stored `dialect` to skip it. Setting
 * `legacy.keyTransport` to `query` or `header` means the legacy API. Credentials: `apiKey` for the
 * legacy API; `login` with `password` and `apiKey`, or with `personalAccessToken`, for TeamPass 3.
 *
 * @param settings The server, credentials and behaviour.
 * @returns The wire client.
 * @throws {VaultError} `invalid_request` for a base URL that is not http(s), or credentials that
 *   can sign in to no dialect (or not to the one given).
 */
export function openWireClient(settings: ClientSettings): WireClient {
  const remembered = knownIdentification(settings);
  const { keyTransport } = settings.legacy;
  const forcedTransport = keyTransport === 'query' || keyTransport === 'header';
  const dialect =
    settings.dialect ??
    (forcedTransport || settings.server === 'teampass-compatible' || remembered !== undefined
      ? 'legacy'
      : settings.server === 'teampass3'
        ? 'teampass3'
        : 'auto');
  if (dialect === 'legacy') return createLegacyVaultClient(settings, { remembered });
  const baseUrl = validateBaseUrl(settings.baseUrl);
  if (dialect === 'teampass3') return createTeamPass3Client({ ...settings, baseUrl });
  if (dialect !== 'auto') {
    throw new VaultError(
      'invalid_request',
      `Expected a dialect of auto, legacy or teampass3, received ${JSON.stringify(String(dialect)).slice(0, 40)}.`,
    );
  }
  return createAutoDialectClient({ ...settings, baseUrl }, (identify) =>
    createLegacyVaultClient(settings, { identify }),
  );
}

/**
 * A Vaultline server's earlier identification, when it may stand for a new one: well-formed, and
 * sending the key in a header (a stored answer never puts a key in a URL).
 */
function knownIdentification(settings: ClientSettings): ServerInfo | undefined {
  const { identification, dialect, server } = settings;
  if (identification === undefined || settings.legacy.keyTransport === 'query') return undefined;
  if (dialect === 'teampass3' || (server !== undefined && server !== 'vaultline')) return undefined;
  const parsed = v.safeParse(ServerInfoSchema, identification);
  if (!parsed.success || !parsed.output.features.includes('bearer-auth')) return undefined;
  const { login: _keyed, ...keyless } = parsed.output;
  return keyless;
}
