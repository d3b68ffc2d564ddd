import { exactLimiter, type Limiter, postgresCounter, writeBehindLimiter } from '@vaultline/rate-limit';
import type { Config } from './env.ts';
import type { Database } from './store/database.ts';

/** The table the store's first migration creates for rate-limiter-flexible. */
const TABLE = 'rate_limits';

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
export async function createLimiters(
  db: Database,
  config: Pick<Config, 'revealLimit' | 'revealWindowSeconds' | 'commandLimit' | 'commandWindowSeconds'>,
  onError: (error: unknown) => void,
): Promise<{ revealLimiter: Limiter; commandLimiter: Limiter }> {
  const query = (text: string, values?: unknown[]) => db.query(text, values);
  const counter = (keyPrefix: string, points: number, durationSeconds: number) =>
    postgresCounter({ query, tableName: TABLE, tableCreated: true, keyPrefix, points, durationSeconds });
  const [reveals, commands] = await Promise.all([
    counter('reveal', config.revealLimit, config.revealWindowSeconds),
    counter('command', config.commandLimit, config.commandWindowSeconds),
  ]);
  return {
    revealLimiter: exactLimiter(reveals),
    commandLimiter: writeBehindLimiter({ shared: commands, onError }),
  };
}
