/**
 * The API pipeline: every request under an API prefix goes through it, in this order: the URL
 * limit, the client address, the request limit, the keyless OIDC exchange and identification, the key check (and
 * failed-key lockout), then the operation the path names, under its audit. Once the key is known,
 * the request is answered in the key's profile ({@link ANSWER_PROFILES}: errors, delete status,
 * folder values, `info/version` asked with the key); before, and for the key's own failures, as
 * docs/api.md says. Every request is logged once.
 *
 * Plain functions over {@link ApiRequest}, no framework: `node:http` calls it directly for the
 * API's GET requests (see {@link ./node-listener.ts}), the Hono app for the rest (POST, browser
 * calls under CORS). Measured on read/items, the framework layer (Hono, its Node adapter, the
 * `Request` and `Response` objects) cost about 10 µs of the 55 µs the server spent per request.
 *
 * @module
 */

import { Readable } from 'node:stream';
import { VaultError } from '@vaultline/protocol';
import { OIDC_EXCHANGE_PATH, SERVER_INFO_PATH } from '@vaultline/protocol/wire';
import type { Logger } from 'pino';
import { API_PREFIXES } from '../constants.ts';
import { AddressNotAllowedError, invalid, NoSuchOperationError } from '../errors.ts';
import { loggableError } from '../logger.ts';
import type { IssuerKeys } from '../oidc/issuer-keys.ts';
import type { Principal } from '../store/access.ts';
import type { AuditWriter } from '../store/audit-writer.ts';
import type { StoreContext } from '../store/store-context.ts';
import type { VaultStore } from '../store/vault-store.ts';
import { ANSWER_PROFILES, type AnswerProfile, DEFAULT_ANSWER_PROFILE } from './answer-profiles.ts';
import type { ApiAnswer, ApiRequest } from './api-call.ts';
import { answer, errorAnswer, JSON_HEADERS } from './api-response.ts';
import type { AddressOf } from './client-address.ts';
import { NO_SUCH_OPERATION } from './error-mapping.ts';
import { createKeyCheck, type QueryKeyPolicy } from './key-check.ts';
import { checkRequestLimit, type Limiters } from './limits.ts';
import { createOperations } from './operations.ts';
import { logRequest, type RequestLogEntry, urlTooLong } from './request-log.ts';
import { serverInfo, serverInfoAnswer } from './server-info.ts';
import type { TransferGate } from './transfer-gate.ts';

/** What the pipeline needs. */
export interface ApiPipelineOptions {
  readonly ctx: StoreContext;
  /** The vault's folders, items and attachments: the local store or the upstream one. */
  readonly store: VaultStore;
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
  /** Upstream mode: the time each caller is given for its upstream work, in ms. */
  readonly upstreamDeadlineMs?: number | undefined;
  /** The keys of the issuers trust policies name (OIDC exchange); a cache of its own by default. */
  readonly issuerKeys?: IssuerKeys | undefined;
}

/** A request's log line while the pipeline fills it in, and the profile it is answered in. */
type Seen = { -readonly [K in keyof RequestLogEntry]: RequestLogEntry[K] } & { profile: AnswerProfile };

/**
 * Whether a request carries a key the identification must check: `?apikey=`, or a bearer
 * `Authorization` (another scheme, such as a proxy's Basic, is no key of this API).
 */
function carriesKey(request: ApiRequest): boolean {
  if (/^Bearer\b/i.test(request.header('authorization') ?? '')) return true;
  const query = request.target.indexOf('?');
  return query !== -1 && new URLSearchParams(request.target.slice(query + 1)).has('apikey');
}

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
  // Loaded on the first exchange, with jose: a server no workload calls does without them at rest.
  let exchange: Promise<(request: ApiRequest, address: string) => Promise<ApiAnswer>> | undefined;
  const exchangeOf = () => {
    exchange ??= Promise.all([import('./oidc-exchange.ts'), import('../oidc/issuer-keys.ts')]).then(
      ([{ createOidcExchange }, { createIssuerKeys }]) =>
        createOidcExchange({
          ...options,
          failedKeys: options.limiters.failedKeys,
          issuerKeys: options.issuerKeys ?? createIssuerKeys(),
        }),
    );
    return exchange;
  };
  const info = serverInfoAnswer(options.queryKeys, options.store.features);
  const described = serverInfo(options.queryKeys, options.store.features);
  /** The identification asked with a key: the login it acts as too, where it acts as one. */
  const keyInfo = (principal: Principal): ApiAnswer => {
    const login =
      principal.kind === 'user'
        ? principal.login
        : principal.kind === 'upstream' && principal.grant.accountLogin !== ''
          ? principal.grant.accountLogin
          : undefined;
    return login === undefined ? info : answer(200, JSON_HEADERS, JSON.stringify({ ...described, login }));
  };
  const noSuchOperation = errorAnswer(NO_SUCH_OPERATION.status, NO_SUCH_OPERATION.body);

  return async (request) => {
    // The request's log line, filled in as the request goes.
    const seen: Seen = {
      op: 'unknown',
      status: 0,
      started: performance.now(),
      profile: DEFAULT_ANSWER_PROFILE,
    };
    let answer: ApiAnswer;
    try {
      answer = urlTooLong(request.target, maxUrlLength) ?? (await pass(request, seen));
    } catch (error) {
      // A key refused for the address is known, though the request got no further.
      const profile = error instanceof AddressNotAllowedError ? ANSWER_PROFILES[error.profile] : seen.profile;
      answer = profile.answerError(error, logger);
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
    if (rest === OIDC_EXCHANGE_PATH) {
      seen.op = 'auth/oidc';
      return (await exchangeOf())(request, address);
    }
    const identification = rest === SERVER_INFO_PATH && request.method === 'GET';
    if (identification) {
      seen.op = 'info/version';
      // Keyless, it tells clients what this server is. A script asking with its key (as
      // TeamPass requires) is answered in the key's profile, after the key check.
      if (!carriesKey(request)) return info;
    }
    const identity = await keyCheck(request, address);
    seen.keyLabel = identity.principal.keyLabel;
    seen.profile = ANSWER_PROFILES[identity.profile];
    if (identification) return seen.profile.version ?? keyInfo(identity.principal);
    const fixed = request.method === 'GET' ? seen.profile.fixed[rest] : undefined;
    if (fixed) {
      seen.op = rest.slice(1);
      return fixed;
    }
    const operation = operationOf(rest);
    if (operation === undefined) throw new NoSuchOperationError();
    seen.op = operation.name;
    return operation.run(request, rest, identity.principal, address, seen.profile);
  }
}
