import type { AccessChecker, VaultClient } from '@vaultline/protocol';
import type { LimitFunction } from 'p-limit';
import type { Logger } from 'pino';
import type { AckFirst } from './ack-first.ts';
import type { AuditLog } from './audit.ts';
import type { Config } from './env.ts';
import type { IdentityResolver } from './identity.ts';
import type { RedactionTimers } from './redaction-timers.ts';
import type { RevealLimiter } from './reveal-limiter.ts';
import type { ItemSearch } from './search.ts';

/** What every command and action handler is built from. */
export interface Deps {
  config: Config;
  vault: VaultClient;
  access: AccessChecker;
  search: ItemSearch;
  identity: IdentityResolver;
  audit: AuditLog;
  limiter: RevealLimiter;
  timers: RedactionTimers;
  logger: Logger;
  /** Runs the work that follows an ack, a few at a time, so a burst of commands is acked first. */
  afterAck: LimitFunction;
  /** Holds that work back while a burst of requests is still arriving. */
  ackFirst: AckFirst;
}
