/**
 * Rate limits that count locally and share through a store: the one implementation of "count
 * here, share there" for Vaultline's apps, over rate-limiter-flexible.
 *
 * @module
 */
export { MAX_PLAIN_KEY_LENGTH, storageKey } from './keys.ts';
export type { Decision, ExactCounter, Limiter, SharedCounter } from './limiter.ts';
export {
  DEFAULT_FLUSH_INTERVAL_MS,
  DEFAULT_LOAD_TIMEOUT_MS,
  DEFAULT_MAX_KEYS,
  exactLimiter,
  type LimiterErrorPhase,
  type MemoryLimiterOptions,
  memoryLimiter,
  type WriteBehindLimiterOptions,
  writeBehindLimiter,
} from './limiters.ts';
export { type PostgresCounterOptions, postgresCounter, rateLimitTableSql } from './postgres-counter.ts';
export {
  type MemoryTokenBucketOptions,
  memoryTokenBucket,
  type PostgresTokenBucketOptions,
  postgresTokenBucket,
  type TokenBucketLimit,
  tokenBucketTableSql,
} from './token-bucket.ts';
