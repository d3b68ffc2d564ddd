/**
 * The audit of API operations: failed writes (a successful write is recorded by the store, inside
 * the write's own transaction, with the actor it was given) and reads whose row of the endpoint table says `secret`, with
 * their outcome. Never a secret: targets are ids.
 *
 * @module
 */

import type { EndpointDefinition } from '@vaultline/protocol';
import type { MiddlewareHandler } from 'hono';
import { keyActor } from '../store/actor.ts';
import type { AuditWriter } from '../store/audit-writer.ts';
import type { AppEnv } from './app-env.ts';
import { toApiError } from './error-mapping.ts';

/**
 * Audits one operation. Runs after the key check, around the operation's handler, which names its
 * target with `c.set('auditTarget', …)`.
 *
 * @param definition The operation's row of the endpoint table.
 * @param audit The audit writer.
 * @returns The middleware.
 */
export function auditOperation(
  definition: Pick<EndpointDefinition, 'operation' | 'access' | 'secret'>,
  audit: AuditWriter,
): MiddlewareHandler<AppEnv> {
  const write = definition.access === 'write';
  const audited = write || definition.secret;
  return async (c, next) => {
    c.set('operation', definition.operation);
    if (!audited) {
      await next();
      return;
    }
    // Who acts, as the store names them in the records of the writes it audits.
    const actor = keyActor(c.get('principal'), c.get('address'));
    const base = {
      actor: actor.name,
      keyLabel: actor.keyLabel,
      action: definition.operation,
      address: actor.address,
    };
    await next();
    // Hono has turned a thrown error into the answer already; `c.error` keeps what was thrown.
    const failed = c.error !== undefined;
    const entry = {
      ...base,
      target: failed ? '' : c.get('auditTarget'),
      outcome: failed ? (toApiError(c.error)?.body.code ?? 'server') : 'ok',
    };
    if (!write) audit.record(entry);
    else if (failed) await audit.recordNow(entry);
  };
}
