import { hkdfSync } from 'node:crypto';
import type { App } from '@slack/bolt';
import {
  createAccessChecker,
  createVaultClient,
  type Redactor,
  secretsOf,
  type TokenCache,
  type VaultClient,
  type VaultCredentials,
} from '@vaultline/protocol';
import { exactLimiter, postgresCounter } from '@vaultline/rate-limit';
import type { Database } from '@vaultline/store';
import type { Logger } from 'pino';
import type { AuditLog } from '../audit.ts';
import type { VaultMode } from '../bot/vault-mode.ts';
import {
  AUDIT_EVENTS,
  LINK_ATTEMPT_WINDOW_SECONDS,
  LINK_ATTEMPTS,
  LINKED_CLIENT_IDLE_MS,
  LINKED_RATE_LIMIT_RETRY,
  MAX_LINKED_CLIENTS,
} from '../constants.ts';
import type { LinkParts } from '../deps.ts';
import type { Config } from '../env.ts';
import { createSignInGuard } from '../limits.ts';
import { errorFields } from '../safe-error.ts';
import { createItemSearch } from '../search.ts';
import type { SecretRegistry } from '../secret-registry.ts';
import { RATE_LIMIT_TABLE } from '../store/migrations.ts';
import { type Accounts, linkedAccounts } from './accounts.ts';
import { createLinkedClients } from './clients.ts';
import { createLinkStore } from './links.ts';
import { createSealer } from './sealer.ts';
import { tellLinkAdmins } from './sign-in-budget.ts';

/**
 * The key of the logins' hashes, derived from the link key for that purpose alone (HKDF-SHA256):
 * the link key itself seals the credentials, and no value is keyed by both.
 *
 * @param linkKey The link key.
 * @returns The key.
 */
export function loginHashKey(linkKey: Uint8Array): Uint8Array {
  return new Uint8Array(
    hkdfSync('sha256', linkKey, new Uint8Array(0), 'vaultline slack-bot: login hashes', 32),
  );
}

/** What the link parts are built on (the bot's parts base, in part). */
export interface LinkPartsBase {
  app: App;
  /** The store itself: the command limit's first loads run before acks. */
  db: Database;
  /** The store as the work after acks uses it. */
  store: Database;
  log: Logger;
  redact: Redactor;
  /** The secrets held for a while (linked credentials), redacted from every log line. */
  secrets: SecretRegistry;
  /** How the bot reaches the vault (decided at start). */
  mode: Pick<VaultMode, 'dialect'>;
  /** The `fetch` the vault clients use. */
  fetch: typeof globalThis.fetch | undefined;
}

/**
 * Each person's own linked account: the sealed store (sealed again with the current key at
 * start), the clients, the link checks.
 *
 * @param config The settings.
 * @param base The app, the store, the logger, the held secrets and the vault mode.
 * @param audit The audit log.
 * @returns The accounts people act as, and the parts of the link flow.
 */
export async function linkParts(
  config: Config,
  base: LinkPartsBase,
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
  const connect = (credentials: VaultCredentials, tokenCache: TokenCache): VaultClient =>
    createVaultClient({
      baseUrl: config.vaultUrl,
      auth: credentials,
      dialect: base.mode.dialect,
      timeoutMs: config.vaultTimeoutMs,
      fetch: base.fetch,
      retry: { retries: 1, ...LINKED_RATE_LIMIT_RETRY },
      teampass3: { tokenCache },
    });
  const clients = createLinkedClients({
    make(link) {
      const client = connect(link.credentials, links.tokenCache(link.slackUser, link.version));
      // Folder rights decide, as for the bot's key; the vault enforces them as well.
      const access = createAccessChecker(client, { ttlMs: config.accessCacheSeconds * 1000 });
      return { client, access, search: createItemSearch(client, access) };
    },
    secrets: base.secrets,
    max: MAX_LINKED_CLIENTS,
    idleMs: LINKED_CLIENT_IDLE_MS,
    onError: (error) => log.warn(errorFields(error, redact), 'could not let a linked account’s client go'),
  });
  const signIns = createSignInGuard(base.db, config, loginHashKey(config.link.key));
  const admins = { config, slack: () => base.app.client, logger: log, redact };
  // The vault refused a linked account's sign-in, or locked sign-ins.
  const auditRefused = (slackUser: string, login: string, outcome: string) =>
    audit.record({
      event: AUDIT_EVENTS.linkRefusedByVault,
      slackUser,
      slackTeam: undefined,
      login,
      channel: undefined,
      outcome,
    });
  const accounts = linkedAccounts({
    links,
    clients,
    async onRefused(slackUser, login, signInFailed) {
      // A failed sign-in again counts towards the bot's budget, as a failed link attempt does.
      if (signInFailed)
        await signIns
          .failed(slackUser, login)
          .catch((error: unknown) =>
            log.warn(errorFields(error, redact), 'could not count a failed sign-in in the store'),
          );
      await auditRefused(slackUser, login, 'refused');
    },
    async onLocked(slackUser, login) {
      await auditRefused(slackUser, login, 'locked');
      try {
        const lock = await signIns.locked(login);
        if (lock.first)
          await tellLinkAdmins(admins, audit, 'vault_locked', lock.retryAfterSeconds, {
            member: slackUser,
            loginRef: signIns.loginRef(login),
          });
        return lock.retryAfterSeconds;
      } catch (error) {
        log.warn(errorFields(error, redact), 'could not keep the vault’s lock in the store');
        return config.signInLockSeconds;
      }
    },
    async signOut(link, token) {
      // A client that holds the token alone: dispose() signs it out without signing in.
      let kept: string | undefined = token;
      const client = connect(link.credentials, {
        get: () => kept,
        set: (next) => {
          kept = next;
        },
      });
      base.secrets.hold(`signout:${link.slackUser}:${link.version}`, secretsOf(link.credentials));
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
