/**
 * `@vaultline/protocol/testing`: fakes of the servers that cannot run here, for tests that talk to
 * them over HTTP on 127.0.0.1. Node-only (they are `node:http` servers).
 *
 * @module
 */

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
