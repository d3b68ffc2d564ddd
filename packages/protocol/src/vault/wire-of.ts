/**
 * The wire client under a `VaultClient`: the core's own helpers (search, references, the access
 * checker) and tools that speak the legacy API by hand reach the operations by their wire names
 * through it, with the same session, cache and credentials.
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

/**
 * The wire client of a `VaultClient`, or a wire client (or part of one) as given: what the core's
 * helpers accept, so that code holding either can use them.
 *
 * @param client The client.
 * @returns Its wire client.
 */
export function asWire<T extends object>(client: VaultClient | T): T | WireClient {
  return wires.get(client) ?? (client as T);
}
