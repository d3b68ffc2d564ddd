/**
 * `@vaultline/sealer/node`: the private files that apps on Node keep on disk, sealed with
 * AES-256-GCM (`sealed-file.ts`), and the caches kept in them (`sealed-cache.ts`). Not for
 * browsers: it uses `node:fs` and `node:crypto`.
 *
 * @module
 */

export * from './node/sealed-cache.ts';
export * from './node/sealed-file.ts';
