import { isVaultError } from '@vaultline/protocol';
import type { Deps } from '../deps.ts';
import type { Account } from '../linking/accounts.ts';
import { errorFields } from '../safe-error.ts';
import { expand } from '../user-groups.ts';

/**
 * The Slack users who approve requests for a folder, now: the folder's approvers from the
 * configuration, else the default ones, user groups expanded through the Web API.
 *
 * @param deps The bot's parts.
 * @param folderId The item's folder, when known.
 * @returns User ids.
 */
export async function approversFor(deps: Deps, folderId: number | undefined): Promise<string[]> {
  const configured =
    (folderId === undefined ? undefined : deps.config.folderApprovers.get(folderId)) ?? deps.config.approvers;
  return expand(deps, configured);
}

/** Every approver the configuration names, for any folder, user groups expanded. */
export async function everyApprover(deps: Deps): Promise<string[]> {
  const everyone = new Set<string>(deps.config.approvers);
  for (const ids of deps.config.folderApprovers.values()) for (const approver of ids) everyone.add(approver);
  return expand(deps, [...everyone]);
}

/**
 * The approvers who may read the item themselves (their vault user's rights, personal folders
 * included): the only ones who are asked, so that a label reaches nobody who cannot read it.
 */
export async function readersAmong(
  deps: Deps,
  approvers: readonly string[],
  item: { id: number; folderId: number },
): Promise<string[]> {
  const readers = await Promise.all(
    approvers.map(async (approver) =>
      (await asApprover(deps, approver, ({ login, access }) => access.canRead(login, item)))
        ? approver
        : undefined,
    ),
  );
  return readers.filter((approver) => approver !== undefined);
}

/**
 * Runs work as an approver's vault account (the bot's key for their login, or their own linked
 * account). Undefined when they have none; where people link, also when the vault refuses their
 * account (theirs to fix: one approver's account does not fail another person's request).
 */
export async function asApprover<T>(
  deps: Deps,
  approver: string,
  work: (account: Account) => Promise<T>,
): Promise<T | undefined> {
  try {
    const used = await deps.accounts.use(approver, deps.slack(), work);
    return used.ok ? used.value : undefined;
  } catch (error) {
    if (deps.accounts.linking && (isVaultError(error, 'unauthorized') || isVaultError(error, 'forbidden'))) {
      deps.logger.warn(
        { approver, ...errorFields(error, deps.redact) },
        'an approver’s linked account was refused',
      );
      return undefined;
    }
    throw error;
  }
}
