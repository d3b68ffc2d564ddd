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
import type { WireClient, WireClientOptions } from './types.ts';

/**
 * Creates the wire client of a vault: the Vaultline server, TeamPass 2 (the legacy API) or
 * TeamPass 3, with the options flattened by `vault/options.ts`.
 *
 * With `dialect: 'auto'` (the default) one keyless request before the first call tells the
 * dialect (see `detectDialect`), once per client; pass the stored `dialect` to skip it. Setting
 * `keyTransport` to `query` or `header` means the legacy API. Credentials: `apiKey` for the legacy
 * API; `login` with `password` and `apiKey`, or with `personalAccessToken`, for TeamPass 3.
 *
 * @param options The server, credentials and behaviour, flat.
 * @returns The wire client.
 * @throws {VaultError} `invalid_request` for a base URL that is not http(s), or credentials that
 *   can sign in to no dialect (or not to the one given).
 */
export function openWireClient(options: WireClientOptions): WireClient {
  const remembered = knownIdentification(options);
  const forcedTransport = options.keyTransport === 'query' || options.keyTransport === 'header';
  const dialect =
    options.dialect ??
    (forcedTransport || options.server === 'teampass-compatible' || remembered !== undefined
      ? 'legacy'
      : options.server === 'teampass3'
        ? 'teampass3'
        : 'auto');
  if (dialect === 'legacy') return createLegacyVaultClient(options, { remembered });
  const baseUrl = validateBaseUrl(options.baseUrl);
  if (dialect === 'teampass3') return createTeamPass3Client({ ...options, baseUrl });
  if (dialect !== 'auto') {
    throw new VaultError(
      'invalid_request',
      `Expected a dialect of auto, legacy or teampass3, received ${JSON.stringify(String(dialect)).slice(0, 40)}.`,
    );
  }
  return createAutoDialectClient({ ...options, baseUrl }, (identify) =>
    createLegacyVaultClient(options, { identify }),
  );
}

/**
 * A Vaultline server's earlier identification, when it may stand for a new one: well-formed, and
 * sending the key in a header (a stored answer never puts a key in a URL).
 */
function knownIdentification(options: WireClientOptions): ServerInfo | undefined {
  if (options.identification === undefined || options.keyTransport === 'query') return undefined;
  if (options.dialect === 'teampass3' || (options.server !== undefined && options.server !== 'vaultline'))
    return undefined;
  const parsed = v.safeParse(ServerInfoSchema, options.identification);
  if (!parsed.success || !parsed.output.features.includes('bearer-auth')) return undefined;
  const { login: _keyed, ...keyless } = parsed.output;
  return keyless;
}
