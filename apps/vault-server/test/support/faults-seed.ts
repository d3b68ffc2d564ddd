/**
 * The TeamPass 3 vault the upstream fault tests and bench run against: alice in a role that may
 * write two folders, 1,000 items in the first (a read of all of them by id is the costly read of
 * the broker issue) and one in the second.
 */

import type { TeamPass3Seed } from '@vaultline/protocol/testing';

/** Items in the first folder. */
export const IN_FOLDER = 1_000;

/**
 * The vault, for a given alice and a prefix of the items' labels and passwords.
 *
 * @param alice Her login, password and API key.
 * @param names `Faults` (the tests) or `Bench-Faults` (the bench): item `n`'s password is
 *   `${names}-Secret-${n}`, the other folder's `${names}-Other-Secret`.
 * @returns The seed.
 */
export function faultsSeed(
  alice: { login: string; password: string; apiKey: string },
  names: string,
): TeamPass3Seed {
  return {
    folders: [
      { id: 1, title: 'Engineering' },
      { id: 2, title: 'Other' },
    ],
    roles: [{ name: 'Devs', folders: { Engineering: 'W', Other: 'W' } }],
    users: [{ ...alice, roles: ['Devs'] }],
    items: [
      ...Array.from({ length: IN_FOLDER }, (_, i) => ({
        id: i + 1,
        label: `item ${i + 1}`,
        folder: 'Engineering',
        password: `${names}-Secret-${i + 1}`,
      })),
      { id: IN_FOLDER + 1, label: 'elsewhere', folder: 'Other', password: `${names}-Other-Secret` },
    ],
  };
}
