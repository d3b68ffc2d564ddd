/**
 * `@vaultline/value-cache`: the fallback for outages of `vaultline run`, `vaultline inject` and the
 * GitHub Action, the values of the last successful run sealed on disk (see `value-cache.ts`). Node
 * only: it uses `node:fs`.
 *
 * @module
 */

export {
  canFallBack,
  clearValueCaches,
  type FallbackOptions,
  formatAge,
  isRefusal,
  MAX_VALUE_CACHE_BYTES,
  parseMaxAge,
  type Recall,
  type RecalledValue,
  resolveWithFallback,
  VALUE_CACHE_PREFIX,
  type ValueCache,
  type ValueCacheOptions,
  valueCache,
  valueCachePath,
} from './value-cache.ts';
