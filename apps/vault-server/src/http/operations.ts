/**
 * The API's operations, one per row of the endpoint table: the path is decoded with the row's own
 * segments (the core's codec and id decoder), the handler gets them typed by the row, and the
 * audit wraps it.
 *
 * @module
 */

import { VaultError } from '@vaultline/protocol';
import {
  ENDPOINT_NAMES,
  type EndpointDefinition,
  type EndpointName,
  type EndpointParams,
  endpoints,
} from '@vaultline/protocol/wire';
import { invalid, SegmentDecodeError, WrongMethodError } from '../errors.ts';
import type { Principal } from '../store/access.ts';
import { keyActor } from '../store/actor.ts';
import type { AuditWriter } from '../store/audit-writer.ts';
import { asUpstreamCaller } from '../store/upstream-caller.ts';
import type { VaultStore } from '../store/vault-store.ts';
import { ANSWER_PROFILES, type AnswerProfile } from './answer-profiles.ts';
import type { ApiAnswer, ApiRequest } from './api-call.ts';
import { answerOf } from './api-response.ts';
import { auditOperation } from './audit.ts';
import { type Handlers, handlers } from './handlers.ts';
import type { TransferGate } from './transfer-gate.ts';

/** What the operations need. */
export interface OperationOptions {
  /** The vault's folders, items and attachments. */
  readonly store: VaultStore;
  readonly audit: AuditWriter;
  readonly maxFileBytes: number;
  readonly transfers: TransferGate;
  /**
   * Upstream mode: the time each caller is given; its operation runs as an upstream caller
   * (`store/upstream-caller.ts`), so its upstream calls end when it goes away or its time is up.
   */
  readonly upstreamDeadlineMs?: number | undefined;
}

/** One operation, ready to run on a request whose key is checked. */
export interface Operation {
  /** Its name in the request log and the audit (`read/items`). */
  readonly name: string;
  /**
   * Runs it.
   *
   * @param request The request.
   * @param path The path after the API prefix, as sent (`/read/items/1;2`).
   * @param principal Who calls.
   * @param address From where.
   * @param profile How the key is answered.
   * @returns The answer; throws what the answer to an error is made of.
   */
  run(
    request: ApiRequest,
    path: string,
    principal: Principal,
    address: string,
    profile: AnswerProfile,
  ): Promise<ApiAnswer>;
}

/**
 * The decoder of one row's path (after the API prefix, as sent): the template is split once, each
 * placeholder decoded by its row's segment, or by the profile's decoder where it has one. The raw
 * path is used because ids and values must be read as sent (never percent-decoded nor normalised).
 * A segment's refusal names the segment ({@link SegmentDecodeError}).
 *
 * @param definition The row.
 * @param replaced The profile's decoders of this row, by parameter (each decodes to the row's type).
 * @returns A function from the path to the typed parameters, `undefined` when it does not fit.
 */
function pathDecoder<K extends EndpointName>(
  definition: EndpointDefinition & (typeof endpoints)[K],
  replaced: Readonly<Record<string, (segment: string) => unknown>> = {},
): (path: string) => EndpointParams<K> | undefined {
  const parts = definition.path.split('/').map((part) => ({ part, name: /^\{(\w+)\}$/.exec(part)?.[1] }));
  return (path) => {
    const segments = path.split('/');
    if (segments.length !== parts.length) return undefined;
    const params: Record<string, unknown> = {};
    for (const [index, { part, name }] of parts.entries()) {
      const segment = segments[index]!;
      if (name === undefined) {
        if (segment !== part) return undefined;
      } else {
        const decoder = definition.params[name];
        if (decoder === undefined) return undefined;
        try {
          params[name] = (replaced[name] ?? decoder.decode)(segment);
        } catch (error) {
          if (error instanceof VaultError && error.code === 'invalid_request')
            throw new SegmentDecodeError(error.message, decoder);
          throw error;
        }
      }
    }
    // Each value was decoded by the row's own segment, so it has the row's decoded type.
    return params as EndpointParams<K>;
  };
}

function operation<K extends EndpointName>(name: K, options: OperationOptions): Operation {
  const handler: Handlers[K] = handlers[name];
  const definition: EndpointDefinition & (typeof endpoints)[K] = endpoints[name];
  // One decoder per profile, built once.
  const decoders = new Map(
    Object.values(ANSWER_PROFILES).map((profile) => [
      profile,
      pathDecoder<K>(definition, profile.decoders[name]),
    ]),
  );
  const audited = auditOperation(definition, options.audit);
  return {
    name: definition.operation,
    async run(request, path, principal, address, profile) {
      if (request.method !== definition.method) {
        throw new WrongMethodError(
          'invalid_request',
          `${definition.operation} takes ${definition.method}, received ${request.method}.`,
        );
      }
      const params = decoders.get(profile)!(path);
      if (params === undefined) {
        throw invalid('The path does not match the operation: dot segments and extra slashes are refused.');
      }
      options.store.admit(principal);
      const actor = keyActor(principal, address);
      const handled = () =>
        handler({
          params,
          principal,
          actor,
          request,
          profile,
          store: options.store,
          maxFileBytes: options.maxFileBytes,
          transfers: options.transfers,
        });
      const { upstreamDeadlineMs } = options;
      const result = await audited(
        actor,
        upstreamDeadlineMs === undefined
          ? handled
          : () => asUpstreamCaller(request.departed?.(), upstreamDeadlineMs, handled, request.receivedAt),
      );
      return answerOf(result.body);
    },
  };
}

/**
 * The literal start of a row's path, which names its operation: its verb and object
 * (`/read/items`), or its verb alone when a parameter follows it (`/new_password`).
 */
function literalStart(path: string): string {
  const parts = path.split('/').slice(0, 3);
  return (parts[2]?.startsWith('{') ? parts.slice(0, 2) : parts).join('/');
}

/**
 * Every operation of the endpoint table, found by the start of a path.
 *
 * @param options The store, the audit and the attachment limit.
 * @returns A function from a path after the API prefix (`/read/items/1;2`) to its operation,
 *   `undefined` for a path that names none.
 */
export function createOperations(options: OperationOptions): (path: string) => Operation | undefined {
  const byStart = new Map<string, Operation>();
  for (const name of ENDPOINT_NAMES) {
    const start = literalStart(endpoints[name].path);
    if (byStart.has(start)) throw new Error(`Two rows of the endpoint table start with ${start}.`);
    byStart.set(start, operation(name, options));
  }
  return (path) => {
    const first = path.indexOf('/', 1);
    const second = first === -1 ? -1 : path.indexOf('/', first + 1);
    return (
      byStart.get(second === -1 ? path : path.slice(0, second)) ??
      (first === -1 ? undefined : byStart.get(path.slice(0, first)))
    );
  };
}
