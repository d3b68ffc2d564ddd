import type { Fixture, SeededItem } from './fixture.ts';

/**
 * A server the search and attachment tests run against, through the same extension code: the
 * vault server (keys bound to users) or the TeamPass replay server (one shared key, TeamPass's
 * search rules). Both are seeded alike.
 */
export interface Target {
  /** Put in the describe titles. */
  title: string;
  url: string;
  /** A key that may add items anywhere (the vault's admin key, TeamPass's shared key). */
  adminKey: string;
  /** The connection names acting for alice and bob. */
  alice: string;
  bob: string;
  items: { web: SeededItem; ci: SeededItem; db: SeededItem; stripe: SeededItem };
  folders: { infra: number; databases: number; payments: number };
  attachment: { itemId: number; name: string; text: string };
}

export function vaultTarget(fixture: Fixture): Target {
  return {
    title: 'the vault server',
    url: fixture.url,
    adminKey: fixture.keys.admin,
    alice: 'alice',
    bob: 'bob',
    items: fixture.items,
    folders: fixture.folders,
    attachment: fixture.attachment,
  };
}

export function teampassTarget(fixture: Fixture): Target {
  const { teampass } = fixture;
  return {
    title: 'the TeamPass replay server',
    url: teampass.url,
    adminKey: teampass.key,
    alice: 'tp-alice',
    bob: 'tp-bob',
    items: teampass.items,
    folders: teampass.folders,
    attachment: teampass.attachment,
  };
}
