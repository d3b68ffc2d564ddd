import {
  type AccessChecker,
  foldLabel,
  type Item,
  permissionsOf,
  type VaultClient,
} from '@vaultline/protocol';
import { MIN_SERVER_RUN, SERVER_SEARCH_RUNS, SERVER_SEARCH_SAFE, VAULT_FIND_LIMIT } from './constants.ts';

/** What the bot keeps of an item to list it: never the password. */
export interface ListedItem {
  id: number;
  label: string;
  login: string;
  url: string;
  path: string[];
  folderId: number;
}

/** Finds the items a vault user may read. */
export interface ItemSearch {
  /**
   * Finds readable items whose label contains the text (case-insensitive), sorted by label.
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
   *   whose label contains it, as candidates (`exact: false`).
   */
  get(login: string, idOrLabel: string): Promise<{ items: ListedItem[]; exact: boolean }>;
  /**
   * Reads one item after checking, without cache, that the user may still read it.
   *
   * @param login The vault login.
   * @param id The item id.
   * @returns The item with its password, or undefined when the user may not read it.
   */
  readFresh(login: string, id: number): Promise<Item | undefined>;
}

/**
 * Strips an item down to what may be listed.
 *
 * @param item An item from the vault.
 * @returns The listed item.
 */
export function toListed(
  item: Pick<Item, 'id' | 'label' | 'login' | 'url' | 'path' | 'folderId'>,
): ListedItem {
  return {
    id: item.id,
    label: item.label,
    login: item.login,
    url: item.url,
    path: item.path,
    folderId: item.folderId,
  };
}

// Labels compare as the vault compares them for similarity: the core's one folding.
const fold = foldLabel;

function longestSafeRun(text: string): string {
  const runs = text.normalize('NFC').match(SERVER_SEARCH_RUNS) ?? [];
  return runs.reduce((longest, run) => (run.length > longest.length ? run : longest), '');
}

/**
 * Creates the search over a client and an access checker.
 *
 * @param vault The client (on the bot's key, which reads everything).
 * @param access The access checker: the only thing that decides what a person sees.
 * @returns The search.
 */
export function createItemSearch(vault: VaultClient, access: AccessChecker): ItemSearch {
  async function serverFind(login: string, query: string): Promise<{ found: Item[]; complete: boolean }> {
    const rights = await access.load(login);
    const folderIds = [...rights.folders.values()]
      .filter((f) => permissionsOf(f.accessType).read)
      .map((f) => f.id);
    if (folderIds.length === 0) return { found: [], complete: true };
    const found = await vault.findItems({ folderIds, query });
    return { found, complete: found.length < VAULT_FIND_LIMIT };
  }

  async function candidates(login: string, text: string): Promise<{ found: Item[]; complete: boolean }> {
    if (SERVER_SEARCH_SAFE.test(text)) return serverFind(login, text);
    // TeamPass's find/item only takes [A-Za-z0-9_:'-]: the vault searches the longest such run of
    // the text and the bot keeps the labels that hold the whole text.
    const run = longestSafeRun(text);
    if (run.length >= MIN_SERVER_RUN) return serverFind(login, run);
    // Nothing usable for the vault's search (e.g. only emoji or CJK): match over the user's own
    // item list.
    const wanted = fold(text);
    const matches = (await vault.readUserItems({ login })).filter((item) =>
      fold(item.label).includes(wanted),
    );
    return { found: matches.slice(0, VAULT_FIND_LIMIT), complete: matches.length <= VAULT_FIND_LIMIT };
  }

  async function readable(login: string, items: Item[]): Promise<ListedItem[]> {
    const allowed = await access.filterReadable(login, items);
    return allowed.map(toListed).sort((a, b) => a.label.localeCompare(b.label, 'en') || a.id - b.id);
  }

  return {
    async find(login, text) {
      const wanted = fold(text);
      const { found, complete } = await candidates(login, text);
      // The server's matching rule is not specified: keep only label substrings, whatever it sent.
      const items = await readable(
        login,
        found.filter((item) => fold(item.label).includes(wanted)),
      );
      return { items, complete };
    },
    async get(login, idOrLabel) {
      const value = idOrLabel.trim();
      if (/^\d{1,15}$/.test(value)) {
        const id = Number(value);
        const items = await vault.readItems({ ids: [id] });
        return {
          items: await readable(
            login,
            items.filter((item) => item.id === id),
          ),
          exact: true,
        };
      }
      const wanted = fold(value);
      const found = await readable(login, (await candidates(login, value)).found);
      const exact = found.filter((item) => fold(item.label) === wanted);
      if (exact.length > 0) return { items: exact, exact: true };
      return { items: found.filter((item) => fold(item.label).includes(wanted)), exact: false };
    },
    async readFresh(login, id) {
      access.invalidate(login);
      const [item] = await vault.readItems({ ids: [id] });
      if (item?.id !== id) return undefined;
      return (await access.canRead(login, { id, folderId: item.folderId })) ? item : undefined;
    },
  };
}
