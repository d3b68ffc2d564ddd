/**
 * The keyless identification `GET /api/index.php/info/version`: tells clients that this is a
 * Vaultline server and what it supports (the key in a header, still in the URL or not, …), so the
 * protocol client picks its strategy once. It carries no vault data.
 *
 * @module
 */

import { createRequire } from 'node:module';
import { SERVER_INFO_PATH, type ServerFeature, type ServerInfo } from '@vaultline/protocol';
import type { Hono } from 'hono';
import { API_PREFIXES, MAX_FIND_RESULTS } from '../constants.ts';
import { JSON_HEADERS } from './api-response.ts';
import type { AppEnv } from './app-env.ts';
import type { QueryKeyPolicy } from './key-check.ts';

// src/http/ and dist/http/ are both two levels below the package's root.
const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/** The server's version, from its package.json. */
export const SERVER_VERSION: string = version;

/**
 * What this server answers to the identification request.
 *
 * @param queryKeys Whether `?apikey=` is accepted.
 * @returns The answer.
 */
export function serverInfo(queryKeys: QueryKeyPolicy): ServerInfo {
  const features: ServerFeature[] = ['bearer-auth'];
  if (queryKeys === 'accept') features.push('query-key');
  features.push('files', 'unicode-search', 'four-byte-text');
  return { server: 'vaultline', version, features, maxResults: MAX_FIND_RESULTS };
}

/**
 * Registers the identification route under every API prefix. Register it before the key check.
 *
 * @param app The app.
 * @param queryKeys Whether `?apikey=` is accepted.
 */
export function registerServerInfo(app: Hono<AppEnv>, queryKeys: QueryKeyPolicy): void {
  const body = JSON.stringify(serverInfo(queryKeys));
  for (const prefix of API_PREFIXES) {
    app.get(prefix + SERVER_INFO_PATH, (c) => {
      c.set('operation', 'info/version');
      return new Response(body, { headers: JSON_HEADERS });
    });
  }
}
