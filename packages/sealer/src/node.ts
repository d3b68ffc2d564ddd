/**
 * `@vaultline/sealer/node`: what apps that run on Node keep on disk, sealed with AES-256-GCM:
 * private files (`sealed-file.ts`) and the fallback values for outages (`value-cache.ts`). Not for
 * browsers: it uses `node:fs` and `node:crypto`.
 *
 * @module
 */

export * from './node/sealed-file.ts';
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
} from './node/value-cache.ts';
