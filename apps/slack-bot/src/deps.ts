import type { AccessChecker, VaultClient } from '@vaultline/protocol';
import type { Logger } from 'pino';
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
}
