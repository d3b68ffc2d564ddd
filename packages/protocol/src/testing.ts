/**
 * `@vaultline/protocol/testing`: fakes of the servers that cannot run here, for tests that talk to
 * them over HTTP on 127.0.0.1. Node-only (they are `node:http` servers).
 *
 * - `startReplayServer`: TeamPass 2.1's legacy API as real servers answer it (raw-URI matching,
 *   `{"err":"No results"}` with HTTP 200, the odd error statuses, no file endpoints on demand),
 *   with faults switched on per test and every request recorded.
 *
 * @example
 * ```ts
 * import { startReplayServer } from '@vaultline/protocol/testing';
 *
 * const teampass = await startReplayServer({ apiKey: 'test-key' });
 * // … point a client at teampass.url …
 * await teampass.close();
 * ```
 * @module
 */

export {
  type Fault,
  type ReplayOptions,
  type ReplayServer,
  type Reply,
  type SeenRequest,
  type StoredFile,
  type StoredFolder,
  type StoredItem,
  type StoredUser,
  startReplayServer,
} from './testing/teampass-replay-server.ts';
