import { randomUUID } from 'node:crypto';
import type { App } from '@slack/bolt';
import { createAccessChecker, createVaultClient, type Redactor } from '@vaultline/protocol';
import type { Database } from '@vaultline/store';
import pLimit from 'p-limit';
import type { Logger } from 'pino';
import { createAccessRequests } from '../access-requests.ts';
import type { AckFirst } from '../ack-first.ts';
import { createAuditLog } from '../audit.ts';
import { AFTER_ACK_CONCURRENCY } from '../constants.ts';
import type { Deps } from '../deps.ts';
import type { Config } from '../env.ts';
import type { IdentityResolver } from '../identity.ts';
import { createLimiters } from '../limits.ts';
import { createRedactions } from '../redactions.ts';
import { errorFields } from '../safe-error.ts';
import { createItemSearch } from '../search.ts';
import { createViewOwners } from '../view-owners.ts';
import { redactionPoster } from './deliver-redaction.ts';

/** What the parts are built on. */
export interface PartsBase {
  app: App;
  /** The store itself: the command limit's first loads run before acks. */
  db: Database;
  /** The store as the work after acks uses it. */
  store: Database;
  identity: IdentityResolver;
  ackFirst: AckFirst;
  log: Logger;
  redact: Redactor;
  /** The `fetch` the vault client uses. */
  fetch: typeof globalThis.fetch | undefined;
}

/**
 * Builds what every listener works with: the vault client and access checker, the search, the
 * audit log, the limits, the redactions and requests in the store.
 *
 * @param config The settings.
 * @param base The app, the store, the identity resolver, the ack gate and the logger.
 * @returns The parts.
 */
export async function createDeps(config: Config, base: PartsBase): Promise<Deps> {
  const { app, db, store, identity, ackFirst, log, redact } = base;
  const vault = createVaultClient({
    baseUrl: config.vaultUrl,
    apiKey: config.vaultApiKey,
    timeoutMs: config.vaultTimeoutMs,
    fetch: base.fetch,
    retries: 1,
  });
  // Folder rights decide (read/userfolders); never the user's item list, which would carry every
  // password they may see.
  const access = createAccessChecker(vault, { ttlMs: config.accessCacheSeconds * 1000 });
  const limiters = createLimiters(db, config, (error) =>
    log.warn(errorFields(error, redact), 'the rate-limit store could not be reached; limiting in memory'),
  );
  return {
    config,
    vault,
    access,
    search: createItemSearch(vault, access),
    identity,
    audit: createAuditLog({
      file: config.auditFile,
      channel: config.auditChannel,
      client: () => app.client,
      logger: log,
    }),
    db: store,
    ...limiters,
    redactions: createRedactions(store, randomUUID(), redactionPoster(app, config), (error) =>
      log.warn(errorFields(error, redact), 'could not hide a revealed password'),
    ),
    requests: createAccessRequests(store),
    slack: () => app.client,
    deliveries: new Set(),
    logger: log,
    redact,
    afterAck: pLimit(AFTER_ACK_CONCURRENCY),
    ackFirst,
    views: createViewOwners(config.botToken),
  };
}
