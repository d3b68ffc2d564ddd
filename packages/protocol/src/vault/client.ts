/**
 * `createVaultClient`: the client a developer meets, in the domain's words, over the wire client
 * of whichever dialect answers (`client/open.ts`). Each method says what it does for the user;
 * which operations of which dialect carry it out is the wire client's business. This file
 * composes the resources, each a file of its own: `items.ts`, `folders.ts`, `files.ts`, over the
 * context they share (`context.ts`).
 *
 * One not-found rule: what is named by id (`items.get`, `items.getMany`, `items.update`,
 * `items.delete`, `files.download`) and is not there, or not visible to the user, is `not_found`;
 * what is listed or searched (`items.list`, `items.search`, `folders.list`) is what is there.
 *
 * @module
 */

import { openWireClient } from '../client/open.ts';
import type { WireClient } from '../client/types.ts';
import { createVaultContext } from './context.ts';

export { actingLoginOf } from './context.ts';

import { vaultFiles } from './files.ts';
import { vaultFolders } from './folders.ts';
import { vaultItems } from './items.ts';
import { settingsOf } from './options.ts';
import type { VaultClient, VaultClientOptions } from './types.ts';
import { bindWire } from './wire-of.ts';

/** `Symbol.asyncDispose`, where the runtime has it (Node, current browsers), else its registered stand-in. */
const asyncDispose: typeof Symbol.asyncDispose =
  Symbol.asyncDispose ?? (Symbol.for('Symbol.asyncDispose') as typeof Symbol.asyncDispose);

/**
 * Creates a client of a vault: the Vaultline server, TeamPass 2 (the legacy API) or TeamPass 3.
 * The same methods whichever answers; `capabilities()` says what differs.
 *
 * With `dialect: 'auto'` (the default) one keyless request before the first call tells the
 * dialect, once per client; pass the stored `dialect` to skip it.
 *
 * @param options The server, the credentials (`auth`) and behaviour.
 * @returns The client; `await using` disposes of it.
 * @throws {VaultError} `invalid_request` for a base URL that is not http(s), or credentials that
 *   can sign in to no dialect (or not to the one given).
 * @example
 * ```ts
 * await using vault = createVaultClient({ baseUrl: 'https://vault.example.com', auth: process.env.VAULT_KEY! });
 * const { id } = await vault.items.create({ label: 'db', password: 's3cret', folderId: 1 });
 * for await (const page of vault.items.list(1)) console.log(page.map((item) => item.label));
 * ```
 */
export function createVaultClient(options: VaultClientOptions): VaultClient {
  const settings = settingsOf(options);
  const wire = openWireClient(settings);
  const configuredLogin = settings.credentials.login?.trim() || undefined;
  const vault = vaultOver(wire, configuredLogin);
  bindWire(vault, wire);
  return vault;
}

/**
 * The domain client over a wire client already held: for servers and tools that speak the legacy
 * API by hand (`createWireClient`) and hand the same connection to the core's helpers
 * (`resolveReferences`, `createAccessChecker`), which read the domain client. Disposing of it
 * disposes of the wire client.
 *
 * @param wire The wire client.
 * @returns The domain client over it.
 * @example
 * ```ts
 * const wire = createWireClient({ baseUrl, auth: apiKey });
 * const [db] = await resolveReferences(vaultClientOf(wire), ['vaultline://42/password']);
 * ```
 */
export function vaultClientOf(wire: WireClient): VaultClient {
  return vaultOver(wire, undefined);
}

/**
 * The domain client over a wire client.
 *
 * @param wire The wire client.
 * @param configuredLogin The login of the credentials: who a legacy key acts for.
 * @returns The client.
 */
function vaultOver(wire: WireClient, configuredLogin: string | undefined): VaultClient {
  const context = createVaultContext(wire, configuredLogin);
  const dispose = (options?: { signOut?: boolean | undefined }) => wire.dispose(options);
  return {
    baseUrl: wire.baseUrl,
    redact: wire.redact,
    items: vaultItems(context),
    folders: vaultFolders(context),
    files: vaultFiles(context),
    capabilities: (options) => wire.capabilities(options),
    identity: context.identity,
    dispose,
    [asyncDispose]: () => dispose(),
  };
}
