import type { Item } from '@vaultline/protocol';
import { readItemId } from '../actions/button-args.ts';
import type { Deps } from '../deps.ts';
import { readItemOrNone } from '../search.ts';
import { asApprover, everyApprover } from './approvers.ts';

/**
 * Reads an item by id: with the bot's key where it reads everything; else with the approvers'
 * own accounts, the first that may read it (the vault answers nothing to the others).
 */
async function readItem(deps: Deps, id: number): Promise<Item | undefined> {
  if (deps.accounts.shared) return readItemOrNone(deps.accounts.shared, id);
  for (const approver of await everyApprover(deps)) {
    const item = await asApprover(deps, approver, ({ vault }) => readItemOrNone(vault, id));
    if (item) return item;
  }
  return undefined;
}

/**
 * The item a request names: by id (read with the bot's key, or where people link with an
 * approver's account), or by exact label among the items the approvers can read (they are the
 * ones who decide). Undefined when it names no single item.
 */
export async function resolveTarget(
  deps: Deps,
  typed: string,
): Promise<{ id: number; label: string; folderId: number } | undefined> {
  const id = readItemId(typed);
  if (id !== undefined) {
    const item = await readItem(deps, id);
    return item && { id: item.id, label: item.label, folderId: item.folderId };
  }
  const found = new Map<number, { id: number; label: string; folderId: number }>();
  for (const approver of await everyApprover(deps)) {
    const got = await asApprover(deps, approver, ({ login, search }) => search.get(login, typed));
    if (got?.exact)
      for (const item of got.items)
        found.set(item.id, { id: item.id, label: item.label, folderId: item.folderId });
  }
  return found.size === 1 ? [...found.values()][0] : undefined;
}
