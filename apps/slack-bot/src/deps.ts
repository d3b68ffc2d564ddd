import type { webApi } from '@slack/bolt';
import type { AccessChecker, Redactor, VaultClient } from '@vaultline/protocol';
import type { Limiter } from '@vaultline/rate-limit';
import type { Database } from '@vaultline/store';
import type { LimitFunction } from 'p-limit';
import type { Logger } from 'pino';
import type { AccessRequests } from './access-requests.ts';
import type { AckFirst } from './ack-first.ts';
import type { AuditLog } from './audit.ts';
import type { Config } from './env.ts';
import type { IdentityResolver } from './identity.ts';
import type { Redactions } from './redactions.ts';
import type { ItemSearch } from './search.ts';
import type { ViewOwners } from './view-owners.ts';

/** What every command and action handler is built from. */
export interface Deps {
  config: Config;
  vault: VaultClient;
  access: AccessChecker;
  search: ItemSearch;
  identity: IdentityResolver;
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
