/**
 * The API pipeline: every request under an API prefix goes through it, in this order: the URL
 * limit, the client address, the request limit, the keyless identification, the key check (and
 * failed-key lockout), then the operation the path names, under its audit. Every error is answered
 * by {@link answerError}, and every request is logged once.
 *
 * Plain functions over {@link ApiRequest}, no framework: `node:http` calls it directly for the
 * API's GET requests (see {@link ./node-listener.ts}), the Hono app for the rest (POST, browser
 * calls under CORS). Measured on read/items, the framework layer (Hono, its Node adapter, the
 * `Request` and `Response` objects) cost about 10 µs of the 55 µs the server spent per request.
 *
 * @module
 */

import { Readable } from 'node:stream';
import { SERVER_INFO_PATH, VaultError } from '@vaultline/protocol';
import type { Logger } from 'pino';
import { API_PREFIXES } from '../constants.ts';
import { invalid } from '../errors.ts';
import type { AuditWriter } from '../store/audit-writer.ts';
import type { StoreContext } from '../store/store-context.ts';
import type { ApiAnswer, ApiRequest } from './api-call.ts';
import { errorAnswer } from './api-response.ts';
import type { AddressOf } from './client-address.ts';
import { answerError, loggableError, NO_SUCH_OPERATION } from './error-mapping.ts';
import { createKeyCheck, type QueryKeyPolicy } from './key-check.ts';
import { checkRequestLimit, type Limiters } from './limits.ts';
import { createOperations } from './operations.ts';
import { logRequest, type RequestLogEntry, urlTooLong } from './request-log.ts';
import { serverInfoAnswer } from './server-info.ts';
import type { TransferGate } from './transfer-gate.ts';

/** What the pipeline needs. */
export interface ApiPipelineOptions {
  readonly ctx: StoreContext;
  readonly audit: AuditWriter;
  readonly logger: Logger;
  readonly limiters: Limiters;
  readonly maxUrlLength: number;
  readonly maxFileBytes: number;
  /** The bound on attachment transfers. */
  readonly transfers: TransferGate;
  /** The client's address of a request. */
  readonly addressOf: AddressOf;
  /** Whether `?apikey=` is accepted besides `Authorization: Bearer`. */
  readonly queryKeys: QueryKeyPolicy;
}

/** A request's log line while the pipeline fills it in. */
type Seen = { -readonly [K in keyof RequestLogEntry]: RequestLogEntry[K] };

/** Answers one API request; never throws. */
export type ApiPipeline = (request: ApiRequest) => Promise<ApiAnswer>;

/**
 * The API prefix a request target starts with.
 *
 * @param target The raw request target.
 * @returns The prefix (`/api/index.php` or `/api`), or `undefined` for a target outside the API.
 */
export function apiPrefixOf(target: string): string | undefined {
  return API_PREFIXES.find((prefix) => target.startsWith(prefix) && target[prefix.length] === '/');
}

/**
 * Builds the pipeline.
 *
 * @param options The store, the audit, the logger, the limits and the key policy.
 * @returns The pipeline.
 */
export function createApiPipeline(options: ApiPipelineOptions): ApiPipeline {
  const { logger, maxUrlLength, addressOf } = options;
  const requests = options.limiters.requests;
  const operationOf = createOperations(options);
  const keyCheck = createKeyCheck({ ...options, failedKeys: options.limiters.failedKeys });
  const info = serverInfoAnswer(options.queryKeys);
  const noSuchOperation = errorAnswer(NO_SUCH_OPERATION.status, NO_SUCH_OPERATION.body);

  return async (request) => {
    // The request's log line, filled in as the request goes.
    const seen: Seen = { op: 'unknown', status: 0, started: performance.now() };
    let answer: ApiAnswer;
    try {
      answer = urlTooLong(request.target, maxUrlLength) ?? (await pass(request, seen));
    } catch (error) {
      answer = answerError(error, logger);
    }
    seen.status = answer.status;
    logRequest(logger, seen);
    if (answer.body instanceof Readable) logCutShort(answer.body, seen.op);
    return answer;
  };

  /** Logs a streamed body (an attachment) that ends before all of it was sent. */
  function logCutShort(body: Readable, op: string) {
    body.once('error', (error) => {
      // An attachment that fails its check is the server's concern; a client that went away is not.
      if (error instanceof VaultError) logger.error({ op, err: loggableError(error) }, 'answer cut short');
      else logger.info({ op, reason: loggableError(error).message }, 'answer cut short');
    });
  }

  async function pass(request: ApiRequest, seen: Seen) {
    const query = request.target.indexOf('?');
    const path = query === -1 ? request.target : request.target.slice(0, query);
    // As the Node adapter refuses it for the app's routes: `\` is no URL character, and some
    // proxies and clients read it as `/`.
    if (path.includes('\\')) throw invalid('Malformed request: Backslash in request path.');
    const prefix = apiPrefixOf(path);
    if (prefix === undefined) return noSuchOperation;
    const address = addressOf(request);
    seen.addr = address;
    await checkRequestLimit(requests, address);
    const rest = path.slice(prefix.length);
    if (rest === SERVER_INFO_PATH && request.method === 'GET') {
      seen.op = 'info/version';
      return info;
    }
    const principal = await keyCheck(request, address);
    seen.keyLabel = principal.keyLabel;
    const operation = operationOf(rest);
    if (operation === undefined) return noSuchOperation;
    seen.op = operation.name;
    return operation.run(request, rest, principal, address);
  }
}
