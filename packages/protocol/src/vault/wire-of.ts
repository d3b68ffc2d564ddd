/**
 * The wire client under a `VaultClient`, for tools that speak the legacy API by hand: an escape
 * hatch to the operations by their wire names, over the same session, cache and credentials. The
 * core itself never uses it: its helpers read the domain client (`vaultClientOf` goes the other
 * way, from a wire client held by hand to the domain client).
 *
 * @module
 */

import type { WireClient } from '../client/types.ts';
import type { VaultClient } from './types.ts';

const wires = new WeakMap<object, WireClient>();

/**
 * Records the wire client a `VaultClient` is built on.
 *
 * @param vault The client.
 * @param wire Its wire client.
 */
export function bindWire(vault: VaultClient, wire: WireClient): void {
  wires.set(vault, wire);
}

/**
 * The wire client of a `VaultClient`: the legacy API's operations by name (`readItems`,
 * `readUserFolders`, `call(name, input)`), over the same session, cache and credentials.
 *
 * @param vault A client made by `createVaultClient`.
 * @returns Its wire client.
 * @throws {TypeError} For anything else.
 * @example
 * ```ts
 * const folders = await wireOf(vault).readUserFolders({ login: 'alice' });
 * ```
 */
export function wireOf(vault: VaultClient): WireClient {
  const wire = wires.get(vault);
  if (wire === undefined) throw new TypeError('Expected a client made by createVaultClient.');
  return wire;
}
