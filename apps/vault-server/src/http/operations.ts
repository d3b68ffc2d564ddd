/**
 * The API's operations, one route per row of the endpoint table: the path is decoded with the
 * row's own segments (the core's codec and id decoder), the handler gets them typed by the row,
 * and the audit wraps it.
 *
 * @module
 */

import {
  ENDPOINT_NAMES,
  type EndpointDefinition,
  type EndpointName,
  type EndpointParams,
  endpoints,
} from '@vaultline/protocol';
import type { Hono } from 'hono';
import { API_PREFIXES } from '../constants.ts';
import { invalid } from '../errors.ts';
import { keyActor } from '../store/actor.ts';
import type { AuditWriter } from '../store/audit-writer.ts';
import type { StoreContext } from '../store/store-context.ts';
import { respond } from './api-response.ts';
import { type AppContext, type AppEnv, rawTarget } from './app-env.ts';
import { auditOperation } from './audit.ts';
import { type Handlers, handlers } from './handlers.ts';

/** What the operations need. */
export interface OperationOptions {
  readonly ctx: StoreContext;
  readonly audit: AuditWriter;
  readonly maxFileBytes: number;
}

/**
 * The decoder of one row's raw path (after the API prefix): the template is split once, each
 * placeholder decoded by its row's segment. The raw path is used because the router's path is
 * percent-decoded and normalised (`..` resolved), and ids and values must be read as sent.
 *
 * @param definition The row.
 * @returns A function from the raw path to the typed parameters, `undefined` when it does not fit.
 */
export function pathDecoder<K extends EndpointName>(
  definition: EndpointDefinition & (typeof endpoints)[K],
): (rawPath: string) => EndpointParams<K> | undefined {
  const parts = definition.path.split('/').map((part) => ({ part, name: /^\{(\w+)\}$/.exec(part)?.[1] }));
  return (rawPath) => {
    const prefix = API_PREFIXES.find((candidate) => rawPath.startsWith(`${candidate}/`));
    if (prefix === undefined) return undefined;
    const segments = rawPath.slice(prefix.length).split('/');
    if (segments.length !== parts.length) return undefined;
    const params: Record<string, unknown> = {};
    for (const [index, { part, name }] of parts.entries()) {
      const segment = segments[index]!;
      if (name === undefined) {
        if (segment !== part) return undefined;
      } else {
        const decoder = definition.params[name];
        if (decoder === undefined) return undefined;
        params[name] = decoder.decode(segment);
      }
    }
    // Each value was decoded by the row's own segment, so it has the row's decoded type.
    return params as EndpointParams<K>;
  };
}

function registerOperation<K extends EndpointName>(
  app: Hono<AppEnv>,
  name: K,
  options: OperationOptions,
): void {
  const handler: Handlers[K] = handlers[name];
  const definition: EndpointDefinition & (typeof endpoints)[K] = endpoints[name];
  const decode = pathDecoder<K>(definition);
  const routePath = definition.path.replace(/\{(\w+)\}/g, ':$1');
  const handle = async (c: AppContext) => {
    if (c.req.method !== definition.method) {
      throw invalid(`${definition.operation} takes ${definition.method}, received ${c.req.method}.`);
    }
    const params = decode(rawTarget(c).split('?')[0]!);
    if (params === undefined)
      throw invalid('The path does not match the operation: dot segments and extra slashes are refused.');
    const result = await handler({
      params,
      principal: c.get('principal'),
      actor: keyActor(c.get('principal'), c.get('address')),
      request: () => c.req.raw,
      ctx: options.ctx,
      maxFileBytes: options.maxFileBytes,
    });
    c.set('auditTarget', result.target);
    return respond(result.body);
  };
  const audit = auditOperation(definition, options.audit);
  for (const prefix of API_PREFIXES) app.all(prefix + routePath, audit, handle);
}

/**
 * Registers every operation of the endpoint table.
 *
 * @param app The app, with the key check in front of `/api/*`.
 * @param options The store, the audit and the attachment limit.
 */
export function registerOperations(app: Hono<AppEnv>, options: OperationOptions): void {
  for (const name of ENDPOINT_NAMES) registerOperation(app, name, options);
}
