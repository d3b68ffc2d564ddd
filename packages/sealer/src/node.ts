/**
 * `@vaultline/sealer/node`: the private files that apps on Node keep on disk, sealed with
 * AES-256-GCM (`sealed-file.ts`). Not for browsers: it uses `node:fs` and `node:crypto`.
 *
 * @module
 */

export * from './node/sealed-file.ts';
