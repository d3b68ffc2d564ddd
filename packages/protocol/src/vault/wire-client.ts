/**
 * `createWireClient`: the legacy API's operations by their wire names, for servers and tools that
 * speak the API by hand, with `createVaultClient`'s options.
 *
 * @module
 */

import { openWireClient } from '../client/open.ts';
import type { WireClient } from '../client/types.ts';
import { settingsOf } from './options.ts';
import type { VaultClientOptions } from './types.ts';

/**
 * Creates a client of the legacy API's operations by name (on TeamPass 3, the same operations
 * carried out by its API): `readItems`, `readUserFolders`, `findItems`, `addItem`, … and
 * `call(name, input)`.
 *
 * @param options `createVaultClient`'s options.
 * @returns The wire client.
 * @example
 * ```ts
 * const wire = createWireClient({ baseUrl, auth: apiKey });
 * const items = await wire.readItems({ ids: [1, 2] });
 * ```
 */
export function createWireClient(options: VaultClientOptions): WireClient {
  return openWireClient(settingsOf(options));
}
