import type { Deps } from '../deps.ts';
import { expand } from '../user-groups.ts';

/**
 * Tells whether a Slack user may unlink other people's accounts: listed in `LINK_ADMINS` (user
 * groups expanded now).
 *
 * @param deps The bot's parts.
 * @param user The Slack user id.
 * @returns Whether they may.
 */
export async function isLinkAdmin(deps: Deps, user: string): Promise<boolean> {
  if (deps.config.linkAdmins.length === 0) return false;
  return (await expand(deps, deps.config.linkAdmins)).includes(user);
}
