import { exactLimiter, type Limiter, postgresCounter, writeBehindLimiter } from '@vaultline/rate-limit';
import type { Database } from '@vaultline/store';
import type { Config } from './env.ts';
import { RATE_LIMIT_TABLE } from './store/migrations.ts';

/**
 * The bot's two per-user limits, both kept in its store (PGlite or PostgreSQL):
 *
 * - reveals: every reveal is counted in the store before the password is shown, exact across
 *   instances and restarts (a store error refuses the reveal);
 * - commands and clicks: decided in memory before the ack and added to the store in batches every
 *   100 ms, so no statement runs before an ack (except a user's first command since the start).
 *   Across instances the count is approximate by at most one batch per instance (see
 *   `@vaultline/rate-limit`); a store that is down never fails a command.
 *
 * @param db The store.
 * @param config The limits.
 * @param onError Told when the command counts could not be read or written.
 * @returns The limiters; close the command limiter on shutdown.
 */
export function createLimiters(
  db: Database,
  config: Pick<Config, 'revealLimit' | 'revealWindowSeconds' | 'commandLimit' | 'commandWindowSeconds'>,
  onError: (error: unknown) => void,
): { revealLimiter: Limiter; commandLimiter: Limiter } {
  // The table comes from the store's first migration: nothing is created here.
  const counter = (keyPrefix: string, points: number, durationSeconds: number) =>
    postgresCounter({ db, tableName: RATE_LIMIT_TABLE, keyPrefix, points, durationSeconds });
  return {
    revealLimiter: exactLimiter(counter('reveal', config.revealLimit, config.revealWindowSeconds)),
    commandLimiter: writeBehindLimiter({
      shared: counter('command', config.commandLimit, config.commandWindowSeconds),
      onError,
    }),
  };
}
