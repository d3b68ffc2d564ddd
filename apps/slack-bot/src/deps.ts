import type { webApi } from '@slack/bolt';
import type { Redactor, TokenCache, VaultClient, VaultCredentials } from '@vaultline/protocol';
import type { Limiter } from '@vaultline/rate-limit';
import type { Database } from '@vaultline/store';
import type { LimitFunction } from 'p-limit';
import type { Logger } from 'pino';
import type { AckFirst } from './ack-first.ts';
import type { AuditLog } from './audit.ts';
import type { Config } from './env.ts';
import type { SignInGuard } from './limits.ts';
import type { Accounts } from './linking/accounts.ts';
import type { LinkStore } from './linking/links.ts';
import type { Redactions } from './redactions.ts';
import type { AccessRequests } from './requests/store.ts';
import type { SecretRegistry } from './secret-registry.ts';
import type { ViewOwners } from './view-owners.ts';

/** What linking an account needs, where people link theirs. */
export interface LinkParts {
  /** The linked accounts, sealed in the store. */
  links: LinkStore;
  /** A client that signs in with what a person gave (to check it before it is kept). */
  connect(credentials: VaultCredentials, tokenCache: TokenCache): VaultClient;
  /** Link attempts per Slack user (each one a sign-in the vault counts towards its lockouts). */
  attempts: Limiter;
  /** The bot's failed sign-ins, for all its instances: the budget, the cap per login, the vault's lock. */
  signIns: SignInGuard;
}

/** What every command and action handler is built from. */
export interface Deps {
  config: Config;
  /** The vault account each person acts as: the bot's key for them, or their own linked account. */
  accounts: Accounts;
  /** Linking, where people link their own accounts; undefined where the bot's key acts for them. */
  linking: LinkParts | undefined;
  /** The secrets held for a while, redacted from every log line. */
  secrets: SecretRegistry;
  audit: AuditLog;
  /** The bot's store. */
  db: Database;
  /** Reveals per Slack user: every reveal counted in the store (exact across instances and restarts). */
  revealLimiter: Limiter;
  /**
   * Commands and clicks per Slack user, checked before anything reaches the vault: decided in
   * memory, shared through the store in batches (no statement before the ack).
   */
  commandLimiter: Limiter;
  /** Redactions of revealed passwords, in the store. */
  redactions: Redactions;
  /** Access requests and the grants they give. */
  requests: AccessRequests;
  /** The bot's own Web API client (its token), for posts that answer no request. */
  slack: () => webApi.WebClient;
  /** Reveals being delivered now: a stop waits for them before hiding what they showed. */
  deliveries: Set<Promise<unknown>>;
  logger: Logger;
  /** Removes the bot's secrets from a text. */
  redact: Redactor;
  /** Runs the work that follows an ack, a few at a time, so a burst of commands is acked first. */
  afterAck: LimitFunction;
  /** Holds that work back while a burst of requests is still arriving. */
  ackFirst: AckFirst;
  /** Ties each modal the bot opens to the user it opened it for. */
  views: ViewOwners;
}
