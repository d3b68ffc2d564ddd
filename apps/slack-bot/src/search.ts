import {
  type AccessChecker,
  describeRight,
  foldLabel,
  type Item,
  isVaultError,
  parseId,
  permissionsOf,
  type VaultClient,
} from '@vaultline/protocol';

/** What the bot keeps of an item to list it: never the password. */
export interface ListedItem {
  id: number;
  label: string;
  login: string;
  url: string;
  path: string[];
  folderId: number;
  /** What the person may do with it, in the core's words for their right ("read only", …). */
  access: string;
}

/** Finds the items a vault user may read. */
export interface ItemSearch {
  /**
   * Finds readable items with every word of the text in their label, login, URL or folder path
   * (the core's search), best first (the core's ranking).
   *
   * @param login The vault login.
   * @param text The text.
   * @returns The items, and whether they are all of them (the vault caps its search results).
   */
  find(login: string, text: string): Promise<{ items: ListedItem[]; complete: boolean }>;
  /**
   * Finds the readable item with this id, or the readable items with exactly this label.
   *
   * @param login The vault login.
   * @param idOrLabel An id or a label.
   * @returns The items with exactly that id or label; when none has the label exactly, the items
   *   the search finds for it, best first, as candidates (`exact: false`).
   */
  get(login: string, idOrLabel: string): Promise<{ items: ListedItem[]; exact: boolean }>;
  /**
   * Reads one item after checking, without cache, that the user may still read it.
   *
   * @param login The vault login.
   * @param id The item id.
   * @returns The item with its password, or undefined when the user may not read it.
   */
  readFresh(login: string, id: number): Promise<(Item & { access: string }) | undefined>;
}

/**
 * Strips an item down to what may be listed.
 *
 * @param item An item from the vault.
 * @returns The listed item.
 */
export function toListed(
  item: Pick<Item, 'id' | 'label' | 'login' | 'url' | 'path' | 'folderId'>,
  access: string,
): ListedItem {
  return {
    id: item.id,
    label: item.label,
    login: item.login,
    url: item.url,
    path: item.path,
    folderId: item.folderId,
    access,
  };
}

/**
 * Reads one item by id, or nothing where the vault has none the client may read: the bot answers
 * a missing item and a hidden one the same way ("no item you can read").
 *
 * @param vault The client.
 * @param id The item id.
 * @returns The item, or undefined for `not_found`; any other error is thrown.
 */
export async function readItemOrNone(vault: VaultClient, id: number): Promise<Item | undefined> {
  try {
    return await vault.items.get(id);
  } catch (error) {
    if (isVaultError(error, 'not_found')) return undefined;
    throw error;
  }
}

/**
 * Creates the search over a client and an access checker: the core's one search
 * (`vault.items.search`), over the folders the person may read (their rights, cached by the
 * access checker), then the access checker again.
 *
 * @param vault The client (on the bot's key, which reads everything).
 * @param access The access checker: the only thing that decides what a person sees.
 * @returns The search.
 */
export function createItemSearch(vault: VaultClient, access: AccessChecker): ItemSearch {
  async function search(login: string, text: string): Promise<{ found: Item[]; complete: boolean }> {
    const rights = await access.load(login);
    const folderIds = [...rights.folders.values()]
      .filter((folder) => permissionsOf(folder.accessType).read)
      .map((folder) => folder.id);
    if (folderIds.length === 0) return { found: [], complete: true };
    const result = await vault.items.search(text, { folderIds });
    return { found: result.items, complete: !result.truncated };
  }

  // Keeps the order it is given: the core's ranking (filterReadable keeps it too).
  async function readable(login: string, items: Item[]): Promise<ListedItem[]> {
    const allowed = await access.filterReadable(login, items);
    const rights = await access.load(login);
    return allowed.map((item) =>
      toListed(item, describeRight(rights.folders.get(item.folderId)?.accessType)),
    );
  }

  return {
    async find(login, text) {
      const { found, complete } = await search(login, text);
      return { items: await readable(login, found), complete };
    },
    async get(login, idOrLabel) {
      const value = idOrLabel.trim();
      const id = parseId(value);
      if (id !== undefined) {
        const item = await readItemOrNone(vault, id);
        return { items: item ? await readable(login, [item]) : [], exact: true };
      }
      const wanted = foldLabel(value);
      const found = await readable(login, (await search(login, value)).found);
      const exact = found.filter((item) => foldLabel(item.label) === wanted);
      if (exact.length > 0) return { items: exact, exact: true };
      return { items: found, exact: false };
    },
    async readFresh(login, id) {
      access.invalidate(login);
      const item = await readItemOrNone(vault, id);
      if (!item) return undefined;
      if (!(await access.canRead(login, { id, folderId: item.folderId }))) return undefined;
      const rights = await access.load(login);
      return { ...item, access: describeRight(rights.folders.get(item.folderId)?.accessType) };
    },
  };
}
