/**
 * `@vaultline/protocol/testing`: fakes of the servers that cannot run here, for tests that talk to
 * them over HTTP on 127.0.0.1. Node-only (they are `node:http` servers).
 *
 * - `startReplayServer`: TeamPass 2.1's legacy API as real servers answer it (raw-URI matching,
 *   `{"err":"No results"}` with HTTP 200, the odd error statuses, no file endpoints on demand),
 *   with faults switched on per test and every request recorded.
 * - `startRecordingServer`: no vault at all (a web page, a 404, a proxy's refusal, a 503, a dropped
 *   connection), recording every URL it received: for tests that no key reaches a URL there.
 * - `startHoldingProxy`: a proxy in front of any of them (or the Vaultline server) that holds the
 *   requests a test names until it lets them go: a vault slow for exactly as long as a race needs.
 * - `startTeamPass3Fake`: TeamPass 3.2.1.5's REST API (JWT sessions, per-user rights and API
 *   flags, problem+json errors, HTML-escaped labels, nested trees, pagination, 429), stateful,
 *   with a control API for tests; checked against a live recording by the package's tests.
 *
 * @example
 * ```ts
 * import { startReplayServer } from '@vaultline/protocol/testing';
 *
 * const teampass = await startReplayServer({ apiKey: 'test-key' });
 * // … point a client at teampass.url …
 * await teampass.close();
 * ```
 *
 * @module
 */

export { type HoldingProxy, startHoldingProxy } from './testing/holding-proxy.ts';
export {
  RECORDING_MODES,
  type RecordingMode,
  type RecordingServer,
  startRecordingServer,
} from './testing/recording-server.ts';
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
export {
  startTeamPass3Fake,
  type TeamPass3CacheOption,
  type TeamPass3Clock,
  type TeamPass3Fake,
  type TeamPass3FakeOptions,
  type TeamPass3UserChanges,
} from './testing/teampass3/fake-server.ts';
export type {
  TeamPass3ApiFlags,
  TeamPass3FolderRef,
  TeamPass3RequestRecord,
  TeamPass3Right,
  TeamPass3Seed,
  TeamPass3SeedFolder,
  TeamPass3SeedItem,
  TeamPass3SeedRole,
  TeamPass3SeedTotp,
  TeamPass3SeedUser,
  TeamPass3Session,
  TeamPass3Settings,
  TeamPass3StoredFolder,
  TeamPass3StoredItem,
  TeamPass3StoredTotp,
  TeamPass3StoredUser,
} from './testing/teampass3/types.ts';
