import type { Deps } from './deps.ts';

/**
 * The Slack users a list of ids names: user ids as they are, user groups expanded through the Web
 * API (`usergroups.users.list`), now.
 *
 * @param deps The bot's parts.
 * @param ids User ids (U…, W…) and user group ids (S…).
 * @returns User ids.
 */
export async function expand(deps: Pick<Deps, 'slack'>, ids: readonly string[]): Promise<string[]> {
  const users = new Set<string>();
  for (const id of ids) {
    if (!id.startsWith('S')) users.add(id);
    else
      for (const user of (await deps.slack().usergroups.users.list({ usergroup: id })).users ?? [])
        users.add(user);
  }
  return [...users];
}
