import { randomUUID } from 'node:crypto';
import type { App } from '@slack/bolt';
import {
  createAccessChecker,
  createVaultClient,
  type Redactor,
  type TokenCache,
  type VaultClient,
} from '@vaultline/protocol';
import { exactLimiter, postgresCounter } from '@vaultline/rate-limit';
import type { Database } from '@vaultline/store';
import pLimit from 'p-limit';
import type { Logger } from 'pino';
import type { AckFirst } from '../ack-first.ts';
import { type AuditLog, createAuditLog } from '../audit.ts';
import {
  AFTER_ACK_CONCURRENCY,
  AUDIT_EVENTS,
  LINK_ATTEMPT_WINDOW_SECONDS,
  LINK_ATTEMPTS,
  LINKED_CLIENT_IDLE_MS,
  LINKED_SESSION,
  MAX_LINKED_CLIENTS,
} from '../constants.ts';
import type { Deps, LinkParts } from '../deps.ts';
import type { Config } from '../env.ts';
import type { IdentityResolver } from '../identity.ts';
import { createLimiters, createSignInGuard } from '../limits.ts';
import { type Accounts, linkedAccounts, sharedAccounts } from '../linking/accounts.ts';
import { createLinkedClients } from '../linking/clients.ts';
import { createLinkStore, type LinkCredentials } from '../linking/links.ts';
import { createSealer } from '../linking/sealer.ts';
import { tellLinkAdmins } from '../linking/sign-in-budget.ts';
import { createRedactions } from '../redactions.ts';
import { createAccessRequests } from '../requests/store.ts';
import { errorFields } from '../safe-error.ts';
import { createItemSearch } from '../search.ts';
import type { SecretRegistry } from '../secret-registry.ts';
import { RATE_LIMIT_TABLE } from '../store/migrations.ts';
import { createViewOwners } from '../view-owners.ts';
import { redactionPoster } from './deliver-redaction.ts';
import type { VaultMode } from './vault-mode.ts';

/** What the parts are built on. */
export interface PartsBase {
  app: App;
  /** The store itself: the command limit's first loads run before acks. */
  db: Database;
  /** The store as the work after acks uses it. */
  store: Database;
  /** Who each Slack user is, where the bot's key acts for them; undefined where people link. */
  identity: IdentityResolver | undefined;
  ackFirst: AckFirst;
  log: Logger;
  redact: Redactor;
  /** The secrets held for a while (linked credentials), redacted from every log line. */
  secrets: SecretRegistry;
  /** How the bot reaches the vault for people (decided at start). */
  mode: VaultMode;
  /** The `fetch` the vault clients use. */
  fetch: typeof globalThis.fetch | undefined;
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
  const vault = createVaultClient({
    baseUrl: config.vaultUrl,
    apiKey: config.vaultApiKey,
    timeoutMs: config.vaultTimeoutMs,
    fetch: base.fetch,
    retries: 1,
    dialect: base.mode.dialect,
  });
  // Folder rights decide (read/userfolders); never the user's item list, which would carry every
  // password they may see.
  const access = createAccessChecker(vault, { ttlMs: config.accessCacheSeconds * 1000 });
  return sharedAccounts({
    vault,
    access,
    search: createItemSearch(vault, access),
    identity,
  });
}

/** Each person's own linked account: the sealed store, the clients, the link checks. */
async function linkParts(
  config: Config,
  base: PartsBase,
  audit: AuditLog,
): Promise<{ accounts: Accounts; parts: LinkParts }> {
  const { store, log, redact } = base;
  if (!config.link) throw new Error('decideVaultMode lets no linking vault start without a link key');
  const sealer = createSealer(config.link.key, config.link.previousKeys);
  const links = createLinkStore(store, sealer);
  const rotated = await links.rotate();
  if (rotated.resealed > 0 || rotated.unreadable > 0)
    log.info(rotated, 'linked accounts sealed again with the current key');
  if (rotated.unreadable > 0)
    log.warn(
      { unreadable: rotated.unreadable },
      'linked accounts no configured key opens: those people must link again (keep the old key in LINK_PREVIOUS_KEYS to avoid this)',
    );
  const connect = (login: string, credentials: LinkCredentials, tokenCache: TokenCache): VaultClient =>
    createVaultClient({
      baseUrl: config.vaultUrl,
      login,
      ...credentials,
      dialect: base.mode.dialect,
      tokenCache,
      timeoutMs: config.vaultTimeoutMs,
      fetch: base.fetch,
      retries: 1,
      session: LINKED_SESSION,
    });
  const clients = createLinkedClients({
    make(link) {
      const client = connect(link.login, link.credentials, links.tokenCache(link.slackUser, link.version));
      // Folder rights decide, as for the bot's key; the vault enforces them as well.
      const access = createAccessChecker(client, { ttlMs: config.accessCacheSeconds * 1000 });
      return { client, access, search: createItemSearch(client, access) };
    },
    secrets: base.secrets,
    max: MAX_LINKED_CLIENTS,
    idleMs: LINKED_CLIENT_IDLE_MS,
    onError: (error) => log.warn(errorFields(error, redact), 'could not let a linked account’s client go'),
  });
  const signIns = createSignInGuard(base.db, config, config.link.key);
  const admins = { config, slack: () => base.app.client, logger: log, redact };
  const accounts = linkedAccounts({
    links,
    clients,
    async onRefused(slackUser, login, signInFailed) {
      // A failed sign-in again counts towards the bot's budget, as a failed link attempt does.
      if (signInFailed)
        await signIns
          .failed()
          .catch((error: unknown) =>
            log.warn(errorFields(error, redact), 'could not count a failed sign-in in the store'),
          );
      await audit.record({
        event: AUDIT_EVENTS.linkRefusedByVault,
        slackUser,
        slackTeam: undefined,
        login,
        channel: undefined,
        outcome: 'refused',
      });
    },
    async onLocked(slackUser, login) {
      await audit.record({
        event: AUDIT_EVENTS.linkRefusedByVault,
        slackUser,
        slackTeam: undefined,
        login,
        channel: undefined,
        outcome: 'locked',
      });
      try {
        const lock = await signIns.locked();
        if (lock.first) await tellLinkAdmins(admins, audit, 'vault_locked', lock.retryAfterSeconds);
        return lock.retryAfterSeconds;
      } catch (error) {
        log.warn(errorFields(error, redact), 'could not keep the vault’s lock in the store');
        return config.signInLockSeconds;
      }
    },
    async signOut(link, token) {
      // A client that holds the token alone: dispose() signs it out without signing in.
      let kept: string | undefined = token;
      const client = connect(link.login, link.credentials, {
        get: () => kept,
        set: (next) => {
          kept = next;
        },
      });
      base.secrets.hold(`signout:${link.slackUser}:${link.version}`, Object.values(link.credentials));
      try {
        await client.dispose();
      } catch (error) {
        log.warn(errorFields(error, redact), 'could not sign an unlinked account’s session out');
      } finally {
        base.secrets.release(`signout:${link.slackUser}:${link.version}`);
      }
    },
  });
  return {
    accounts,
    parts: {
      links,
      connect,
      signIns,
      attempts: exactLimiter(
        postgresCounter({
          db: base.db,
          tableName: RATE_LIMIT_TABLE,
          keyPrefix: 'link',
          points: LINK_ATTEMPTS,
          durationSeconds: LINK_ATTEMPT_WINDOW_SECONDS,
        }),
      ),
    },
  };
}
