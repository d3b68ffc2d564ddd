/**
 * The audit of API operations: failed writes (a successful write is recorded by the store, inside
 * the write's own transaction, with the actor it was given) and reads whose row of the endpoint
 * table says `secret`, with their outcome; a successful write is then announced to the audit
 * stream. Never a secret: targets are ids.
 *
 * @module
 */

import type { EndpointDefinition } from '@vaultline/protocol/wire';
import type { Actor } from '../store/actor.ts';
import type { AuditWriter } from '../store/audit-writer.ts';
import { toApiError } from './error-mapping.ts';

/** What an audited run answers: at least what the record names as the target (`item 54`). */
export interface Audited {
  readonly target: string;
}

/** Runs one operation under its audit. */
export type AuditedRun = <T extends Audited>(actor: Actor, run: () => Promise<T>) => Promise<T>;

/**
 * The audit of one operation: runs it and records what its row asks for.
 *
 * @param definition The operation's row of the endpoint table.
 * @param audit The audit writer.
 * @returns The audited run: who acts (as the store names them in the records of the writes it
 *   audits) and the operation; it answers what the operation answers and throws what it throws.
 */
export function auditOperation(
  definition: Pick<EndpointDefinition, 'operation' | 'access' | 'secret'>,
  audit: AuditWriter,
): AuditedRun {
  const write = definition.access === 'write';
  if (!write && !definition.secret) return (_actor, run) => run();
  const entryOf = (actor: Actor, target: string, outcome: string) => ({
    actor: actor.name,
    keyLabel: actor.keyLabel,
    action: definition.operation,
    address: actor.address,
    target,
    outcome,
    ...(actor.principal.kind === 'upstream' ? { upstreamAccount: actor.principal.grant.accountName } : {}),
    identity: actor.identity,
  });
  return async <T extends Audited>(actor: Actor, run: () => Promise<T>): Promise<T> => {
    // A read of a secret is served only where its record can be written: refused (503 while the
    // database is unreachable) until the audit writes again.
    if (!write && audit.failure !== undefined)
      throw new Error('The audit cannot be written.', { cause: audit.failure });
    let result: T;
    try {
      result = await run();
    } catch (error) {
      const entry = entryOf(actor, '', toApiError(error)?.body.code ?? 'server');
      if (write) await audit.recordNow(entry);
      else audit.record(entry);
      throw error;
    }
    // A write's record is in the table already, written in its transaction: now it is committed.
    if (write) audit.announce(entryOf(actor, result.target, 'ok'));
    else audit.record(entryOf(actor, result.target, 'ok'));
    return result;
  };
}
