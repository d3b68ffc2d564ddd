import type { Principal, WorkloadIdentity } from './access.ts';

/**
 * Who acts on the store: whose rights apply, and whom the audit record names. Every store write
 * takes one and records it in the write's own transaction, so a write without an audit record
 * cannot be expressed.
 */
export interface Actor {
  /** Whose rights apply. */
  readonly principal: Principal;
  /** Who, as the audit names them: a login, `admin` for an admin key, or an operator's name. */
  readonly name: string;
  /** The API key used; empty when acting without one (the admin CLI, the demo seed, the import). */
  readonly keyLabel: string;
  /** Where from: the client address, or the channel (`cli`, `import`…) of an operator. */
  readonly address: string;
  /** The workload behind a key issued by a trust policy, as the audit names it. */
  readonly identity?: WorkloadIdentity | undefined;
}

/**
 * The actor behind an API key.
 *
 * @param principal Who the key belongs to.
 * @param address The client address.
 * @returns The actor.
 */
export function keyActor(principal: Principal, address: string): Actor {
  return {
    principal,
    // A key bound to an upstream account acts as that account: the audit names it.
    name:
      principal.kind === 'user'
        ? principal.login
        : principal.kind === 'upstream'
          ? principal.grant.accountName
          : 'admin',
    keyLabel: principal.keyLabel,
    address,
    identity: principal.workload,
  };
}

/**
 * An operator acting on the vault directly, without a key, with admin rights: the admin CLI, the
 * demo seed, the import.
 *
 * @param name Who, e.g. the operating-system user running the CLI.
 * @param channel Through what, e.g. `cli` or `import`.
 * @returns The actor.
 */
export function operatorActor(name: string, channel: string): Actor {
  return { principal: { kind: 'admin', keyLabel: '' }, name, keyLabel: '', address: channel };
}
