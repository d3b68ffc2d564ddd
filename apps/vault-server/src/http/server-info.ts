/**
 * The keyless identification `GET /api/index.php/info/version`: tells clients that this is a
 * Vaultline server and what it supports (the key in a header, still in the URL or not, …) and its
 * limits (results of find/item, ids per call), so the protocol client picks its strategy once. It
 * carries no vault data.
 *
 * @module
 */

import { createRequire } from 'node:module';
import type { ServerFeature, ServerInfo } from '@vaultline/protocol/wire';
import { MAX_FIND_RESULTS, MAX_IDS_PER_CALL } from '../constants.ts';
import type { ApiAnswer } from './api-call.ts';
import { answer, JSON_HEADERS } from './api-response.ts';
import type { QueryKeyPolicy } from './key-check.ts';

// src/http/ and dist/http/ are both two levels below the package's root.
const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/** The server's version, from its package.json. */
export const SERVER_VERSION: string = version;

/**
 * What this server answers to the identification request.
 *
 * @param queryKeys Whether `?apikey=` is accepted.
 * @param storeFeatures What its store can do (attachments, search, text): all of it for the local
 *   store; in upstream mode only what every upstream can, so that clients adapt.
 * @returns The answer.
 */
export function serverInfo(queryKeys: QueryKeyPolicy, storeFeatures: readonly ServerFeature[]): ServerInfo {
  const features: ServerFeature[] = ['bearer-auth'];
  if (queryKeys === 'accept') features.push('query-key');
  features.push(...storeFeatures);
  return { server: 'vaultline', version, features, maxResults: MAX_FIND_RESULTS, maxIds: MAX_IDS_PER_CALL };
}

/**
 * The answer to the identification request, built once.
 *
 * @param queryKeys Whether `?apikey=` is accepted.
 * @param storeFeatures What its store can do.
 * @returns The answer.
 */
export function serverInfoAnswer(
  queryKeys: QueryKeyPolicy,
  storeFeatures: readonly ServerFeature[],
): ApiAnswer {
  return answer(200, JSON_HEADERS, JSON.stringify(serverInfo(queryKeys, storeFeatures)));
}
