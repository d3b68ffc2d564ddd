import { randomUUID } from 'node:crypto';
import { createAuditStream } from '@vaultline/audit-stream';
import { createAccessChecker, createVaultClient } from '@vaultline/protocol';
import pLimit from 'p-limit';
import type { AckFirst } from '../ack-first.ts';
import { createAuditLog } from '../audit.ts';
import { AFTER_ACK_CONCURRENCY } from '../constants.ts';
import type { Deps } from '../deps.ts';
import type { Config } from '../env.ts';
import type { IdentityResolver } from '../identity.ts';
import { createLimiters } from '../limits.ts';
import { type Accounts, sharedAccounts } from '../linking/accounts.ts';
import { type LinkPartsBase, linkParts } from '../linking/parts.ts';
import { createRedactions } from '../redactions.ts';
import { createAccessRequests } from '../requests/store.ts';
import { errorFields } from '../safe-error.ts';
import { createItemSearch } from '../search.ts';
import { createViewOwners } from '../view-owners.ts';
import { redactionPoster } from './deliver-redaction.ts';
import type { VaultMode } from './vault-mode.ts';

/** What the parts are built on. */
export interface PartsBase extends LinkPartsBase {
  /** Who each Slack user is, where the bot's key acts for them; undefined where people link. */
  identity: IdentityResolver | undefined;
  ackFirst: AckFirst;
  /** How the bot reaches the vault for people (decided at start). */
  mode: VaultMode;
}

/**
 * Builds what every listener works with: the accounts people act as (the bot's key with the
 * identity settings, or each person's linked account), the audit log, the limits, the redactions
 * and requests in the store.
 *
 * @param config The settings.
 * @param base The app, the store, the ack gate, the logger and the vault mode.
 * @returns The parts.
 */
export async function createDeps(config: Config, base: PartsBase): Promise<Deps> {
  const { app, db, store, ackFirst, log, redact, mode } = base;
  const limiters = createLimiters(db, config, (error) =>
    log.warn(errorFields(error, redact), 'the rate-limit store could not be reached; limiting in memory'),
  );
  const audit = createAuditLog({
    file: config.auditFile,
    channel: config.auditChannel,
    client: () => app.client,
    logger: log,
    stream:
      config.auditSinks.length === 0
        ? undefined
        : createAuditStream({
            sinks: config.auditSinks,
            appName: 'vaultline-slack-bot',
            token: config.auditSinkToken,
            logger: log,
          }),
  });
  const linking = mode.linking ? await linkParts(config, base, audit) : undefined;
  return {
    config,
    accounts: linking ? linking.accounts : await sharedParts(config, base),
    linking: linking?.parts,
    secrets: base.secrets,
    audit,
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

/** The bot's key acting for the login each person is mapped to. */
async function sharedParts(config: Config, base: PartsBase): Promise<Accounts> {
  const identity = base.identity;
  if (!identity) throw new Error('the bot’s key acts for people only with an identity resolver');
  if (config.vaultApiKey === undefined)
    throw new Error('decideVaultMode lets no shared-key bot start without a key');
  const vault = createVaultClient({
    baseUrl: config.vaultUrl,
    auth: config.vaultApiKey,
    timeoutMs: config.vaultTimeoutMs,
    fetch: base.fetch,
    retry: { retries: 1 },
    dialect: base.mode.dialect,
  });
  // Folder rights decide (each person's `folders.list`, named by login); never the user's item
  // list, which would carry every password they may see.
  const access = createAccessChecker(vault, { ttlMs: config.accessCacheSeconds * 1000 });
  return sharedAccounts({
    vault,
    access,
    search: createItemSearch(vault, access),
    identity,
  });
}
