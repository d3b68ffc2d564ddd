/**
 * Resolving references against a vault: batched, access-checked when acting for a login, and every
 * failure a typed error that names the reference, never a value.
 *
 * @see ../../../../docs/references.md
 * @module
 */

import { type AccessChecker, createAccessChecker, type UserAccess } from '../access.ts';
import { isVaultError } from '../errors.ts';
import type { FileInfo, Item } from '../legacy/schemas.ts';
import { permissionsOf } from '../rights.ts';
import { foldLabel } from '../text.ts';
import type { RequestOptions, VaultClient, VaultFiles, VaultFolders, VaultItems } from '../vault/types.ts';
import { fieldText, formatReference, parseReference, type Reference } from './reference.ts';
import { VaultReferenceError } from './reference-error.ts';

/**
 * What resolution reads of a vault: items by id and by folder, a login's folders (never its item
 * list, read/userpw: see the access checker), attachments, one-time codes; and, where given, who
 * the client acts as and what the server enforces. A `VaultClient` is one; a wire client held by
 * hand becomes one with `vaultClientOf` (`@vaultline/protocol/wire`).
 */
export interface ReferenceClient {
  /** Items by id (`getMany`), the items of folders (`list`), one-time codes (`otp`). */
  readonly items: Pick<VaultItems, 'getMany' | 'list' | 'otp'>;
  /** A login's folders. */
  readonly folders: Pick<VaultFolders, 'list'>;
  /** An item's attachments. */
  readonly files: Pick<VaultFiles, 'list' | 'download'>;
  /** Who the client acts as: the login references act for when none is given. */
  readonly identity?: VaultClient['identity'] | undefined;
  /** What the server can do: whether it enforces the rights of the login it acts as. */
  readonly capabilities?: VaultClient['capabilities'] | undefined;
}

/** Options of {@link resolveReferences}. */
export interface ResolveReferencesOptions {
  /**
   * The vault login to act for; by default the client's (`identity().login`: the signed-in user on
   * TeamPass 3, the credentials' `login` on the legacy API). With a login, every item is checked
   * with the access checker (folder rights from the rights table) and references by path can be
   * resolved (the login's folders are what paths are looked up in). Without one (a legacy key
   * that acts for nobody), ids are read with the key's own rights and references by path fail
   * with `login_required`.
   */
  login?: string | undefined;
  /** A checker to share (and its cache of folder rights); a new one over `client` by default. */
  checker?: AccessChecker | undefined;
  /** Cancels the calls. */
  signal?: AbortSignal | undefined;
  /**
   * `false` checks that each reference resolves (its item, the login's right to read it, that it
   * has a one-time code, that the attachment exists) without reading what only the value needs:
   * no one-time code is read and no attachment downloaded, and their `value` is `''`. For hovers
   * and editor warnings, which show an item and never its value. Item fields come with the item
   * either way. Default `true`.
   */
  values?: boolean | undefined;
}

/** What a resolved reference tells of its item: never the password. */
export interface ResolvedItem {
  /** The item id. */
  readonly id: number;
  /** The label. */
  readonly label: string;
  /** The folder that holds it. */
  readonly folderId: number;
  /** The folder path, root first. */
  readonly path: readonly string[];
  /** The item's login. */
  readonly login: string;
}

/** A reference that resolved. */
export interface ResolvedValue {
  /** It resolved. */
  readonly ok: true;
  /** The reference, canonical. */
  readonly text: string;
  /** The parsed reference. */
  readonly reference: Reference;
  /** The value: the field's text, an attachment's bytes read as UTF-8, or the current one-time code. */
  readonly value: string;
  /** For `otp`: how many seconds the code stays valid; absent for other fields. */
  readonly secondsLeft?: number | undefined;
  /** An attachment's bytes; `undefined` for item fields. */
  readonly bytes: Uint8Array | undefined;
  /** The item it points at. */
  readonly item: ResolvedItem;
}

/** A reference that did not resolve. */
export interface UnresolvedReference {
  /** It did not resolve. */
  readonly ok: false;
  /** The reference: canonical when it parsed, as given otherwise. */
  readonly text: string;
  /** The parsed reference, when it parsed. */
  readonly reference: Reference | undefined;
  /** Why. */
  readonly error: VaultReferenceError;
}

/** The outcome of one reference. */
export type ResolvedReference = ResolvedValue | UnresolvedReference;

const utf8Decoder = /* @__PURE__ */ new TextDecoder();
const PATH_SEPARATOR = '\u0000';

interface Entry {
  text: string;
  reference: Reference | undefined;
  error: VaultReferenceError | undefined;
  item: Item | undefined;
}

/**
 * Resolves references: all ids in one `read/items` call (split only where the URL gets too long
 * or the server's id limit is reached), all paths in one `read/userfolders` and one `read/folder`
 * call, attachments through `read/listfiles` and `read/files`. Acting for a login, each item is
 * checked against the login's folder rights (`read/userfolders`, no secrets) with the folder its
 * own record names: the only items read are the ones the references name (and, for paths, the
 * items of the folders they name); the login's item list (`read/userpw`) is never read. Where the
 * server enforces the rights of the login the client acts as (`enforcedRights` when signed in,
 * `identity().enforced`), ids are read without the rights: one request. Results come in the order given; a reference that fails gets
 * a {@link VaultReferenceError} in its result, and the others still resolve. Failures of the vault
 * itself (network, wrong key) are thrown as the client's `VaultError`.
 *
 * @param client The vault client.
 * @param references The references, parsed or as text.
 * @param options The login to act for.
 * @returns One result per reference.
 * @throws {VaultError} When the vault cannot be read at all.
 * @example
 * ```ts
 * const [db] = await resolveReferences(vault, ['vaultline://42/password']);
 * if (db?.ok) useSecret(db.value);
 * else console.error(db?.error.message); // names the reference, never a value
 * ```
 */
export async function resolveReferences(
  client: ReferenceClient,
  references: readonly (Reference | string)[],
  options: ResolveReferencesOptions = {},
): Promise<ResolvedReference[]> {
  const entries = references.map(toEntry);
  const callOptions: RequestOptions = { signal: options.signal };
  const own =
    options.login === undefined && client.identity !== undefined
      ? await client.identity(callOptions)
      : undefined;
  const login = options.login ?? own?.login;
  const checker = login === undefined ? undefined : (options.checker ?? createAccessChecker(client));
  // Acting as itself where the server enforces that login's rights (TeamPass 3's signed-in user,
  // a Vaultline key's own user): a read by id answers only what it may read, so ids need no rights.
  const enforced =
    own?.enforced === true ||
    (own?.userId !== undefined &&
      client.capabilities !== undefined &&
      (await client.capabilities()).enforcedRights);

  const ids = new Set<number>();
  const paths: Entry[] = [];
  for (const entry of entries) {
    if (entry.reference?.kind === 'id') ids.add(entry.reference.id);
    else if (entry.reference?.kind === 'path') {
      if (login === undefined) {
        entry.error = new VaultReferenceError(
          'login_required',
          entry.text,
          `${entry.text}: a reference by path needs a vault login to look up folders; set the login or use the item id.`,
        );
      } else paths.push(entry);
    }
  }

  const [byId, access] = await Promise.all([
    ids.size > 0 ? client.items.getMany([...ids], { ...callOptions, missing: 'omit' }) : ([] as Item[]),
    checker !== undefined && login !== undefined && (paths.length > 0 || !enforced)
      ? checker.load(login, callOptions)
      : undefined,
  ]);
  const items = new Map(byId.map((item) => [item.id, item]));
  for (const entry of entries) {
    const reference = entry.reference;
    if (reference?.kind !== 'id' || entry.error) continue;
    entry.item = items.get(reference.id);
    if (!entry.item) {
      entry.error = new VaultReferenceError(
        'not_found',
        entry.text,
        `${entry.text}: no item with id ${reference.id} (or the key may not read it).`,
      );
    }
  }
  if (paths.length > 0 && access) await resolvePaths(client, paths, access, callOptions);

  if (checker && login !== undefined && !enforced) {
    for (const entry of entries) {
      if (!entry.item || entry.error) continue;
      const readable = await checker.canRead(
        login,
        { id: entry.item.id, folderId: entry.item.folderId },
        callOptions,
      );
      if (!readable) {
        entry.error = new VaultReferenceError(
          'forbidden',
          entry.text,
          `${entry.text}: the login ${JSON.stringify(login)} has no right to read item ${entry.item.id}.`,
        );
        entry.item = undefined;
      }
    }
  }

  const values = options.values !== false;
  const files = await readFiles(client, entries, callOptions, values);
  const codes = await readOtps(client, entries, callOptions, values);
  return entries.map((entry, index) => finish(entry, files.get(index) ?? codes.get(index)));
}

function toEntry(input: Reference | string): Entry {
  try {
    const reference = typeof input === 'string' ? parseReference(input) : input;
    return { text: formatReference(reference), reference, error: undefined, item: undefined };
  } catch (error) {
    if (!(error instanceof VaultReferenceError)) throw error;
    const text = typeof input === 'string' ? input : error.reference;
    return { text, reference: undefined, error, item: undefined };
  }
}

function joinPath(titles: readonly string[], fold: boolean): string {
  return titles.map((title) => (fold ? foldLabel(title) : title.trim())).join(PATH_SEPARATOR);
}

/**
 * Looks references by path up: the folders whose title is the path's last title (among the
 * login's folders), their items in one read/folder call, then the items whose path and label match
 * exactly, or else after folding (case, accents, spaces: {@link foldLabel}).
 */
async function resolvePaths(
  client: ReferenceClient,
  entries: Entry[],
  access: UserAccess,
  callOptions: RequestOptions,
): Promise<void> {
  const folderIds = new Set<number>();
  for (const entry of entries) {
    const reference = entry.reference as Extract<Reference, { kind: 'path' }>;
    const last = foldLabel(reference.folders.at(-1) ?? '');
    for (const folder of access.folders.values()) {
      if (foldLabel(folder.title) === last && permissionsOf(folder.accessType).read) folderIds.add(folder.id);
    }
  }
  const items = folderIds.size > 0 ? await client.items.list([...folderIds], callOptions).all() : [];
  for (const entry of entries) {
    const reference = entry.reference as Extract<Reference, { kind: 'path' }>;
    const exactPath = joinPath(reference.folders, false);
    const foldedPath = joinPath(reference.folders, true);
    const foldedLabel = foldLabel(reference.label);
    const inFolders = items.filter((item) => folderIds.has(item.folderId));
    let matches = inFolders.filter(
      (item) => item.label === reference.label && joinPath(item.path, false) === exactPath,
    );
    if (matches.length === 0) {
      matches = inFolders.filter(
        (item) => foldLabel(item.label) === foldedLabel && joinPath(item.path, true) === foldedPath,
      );
    }
    if (matches.length === 1) entry.item = matches[0];
    else if (matches.length === 0) {
      entry.error = new VaultReferenceError(
        'not_found',
        entry.text,
        `${entry.text}: no item labelled ${JSON.stringify(reference.label)} in the folder ${JSON.stringify(reference.folders.join('/'))} among the folders the login may read.`,
      );
    } else {
      const candidates = matches.map((item) => item.id).sort((a, b) => a - b);
      entry.error = new VaultReferenceError(
        'ambiguous',
        entry.text,
        `${entry.text}: ${candidates.length} items match (ids ${candidates.join(', ')}); use the id form, e.g. vaultline://${candidates[0]}/${fieldText(reference.field)}.`,
        { candidates },
      );
    }
  }
}

interface FileResult {
  bytes?: Uint8Array;
  /** For `otp`: the code and how long it stays valid. */
  otp?: { code: string; secondsLeft: number };
  error?: VaultReferenceError;
}

/**
 * Reads the one-time codes `otp` references name: one `readOtp` per item, only for items that
 * may have one (an item whose record says it has none is `not_found` without a call). Without
 * `values`, an item whose record says it has one is taken as it is, without a call.
 */
async function readOtps(
  client: ReferenceClient,
  entries: Entry[],
  callOptions: RequestOptions,
  values: boolean,
): Promise<Map<number, FileResult>> {
  const results = new Map<number, FileResult>();
  const wanted = new Map<number, number[]>();
  entries.forEach((entry, index) => {
    if (!entry.item || entry.error || entry.reference?.field !== 'otp') return;
    if (entry.item.otp === false) {
      results.set(index, { error: noOtp(entry.text, entry.item.id) });
    } else if (!values && entry.item.otp === true) {
      results.set(index, {});
    } else {
      wanted.set(entry.item.id, [...(wanted.get(entry.item.id) ?? []), index]);
    }
  });
  if (wanted.size === 0) return results;
  await Promise.all(
    [...wanted].map(async ([itemId, indexes]) => {
      try {
        const code = await client.items.otp(itemId, callOptions);
        for (const index of indexes)
          results.set(index, { otp: { code: code.code, secondsLeft: code.secondsLeft } });
      } catch (error) {
        if (!isVaultError(error, 'unsupported', 'not_found')) throw error;
        for (const index of indexes) {
          const text = entries[index]!.text;
          results.set(index, {
            error: isVaultError(error, 'unsupported')
              ? new VaultReferenceError(
                  'unsupported',
                  text,
                  `${text}: this vault has no one-time codes (capabilities: otp false).`,
                )
              : noOtp(text, itemId),
          });
        }
      }
    }),
  );
  return results;
}

function noOtp(text: string, itemId: number): VaultReferenceError {
  return new VaultReferenceError('not_found', text, `${text}: item ${itemId} has no one-time code (TOTP).`);
}

/**
 * Reads the attachments references name: one listing per item, one download per file (none
 * without `values`: the listing says the file exists).
 */
async function readFiles(
  client: ReferenceClient,
  entries: Entry[],
  callOptions: RequestOptions,
  values: boolean,
): Promise<Map<number, FileResult>> {
  const wanted = new Map<number, number[]>();
  entries.forEach((entry, index) => {
    if (entry.item && !entry.error && typeof entry.reference?.field === 'object') {
      const list = wanted.get(entry.item.id) ?? [];
      list.push(index);
      wanted.set(entry.item.id, list);
    }
  });
  const results = new Map<number, FileResult>();
  if (wanted.size === 0) return results;
  const listings = new Map<number, FileInfo[]>();
  try {
    await Promise.all(
      [...wanted.keys()].map(async (itemId) => {
        listings.set(itemId, await notFoundAsEmpty(client.files.list(itemId, callOptions)));
      }),
    );
  } catch (error) {
    if (!isVaultError(error, 'unsupported')) throw error;
    // A vault without attachments (TeamPass 3): every file reference says so.
    for (const indexes of wanted.values()) {
      for (const index of indexes) {
        const text = entries[index]!.text;
        results.set(index, {
          error: new VaultReferenceError(
            'unsupported',
            text,
            `${text}: this vault has no attachments (capabilities: files false).`,
          ),
        });
      }
    }
    return results;
  }
  const downloads = new Map<number, Promise<Uint8Array | undefined>>();
  for (const [itemId, indexes] of wanted) {
    for (const index of indexes) {
      const entry = entries[index]!;
      const name = (entry.reference!.field as { file: string }).file;
      const matches = (listings.get(itemId) ?? []).filter((file) => file.name === name);
      if (matches.length === 0) {
        results.set(index, {
          error: new VaultReferenceError(
            'not_found',
            entry.text,
            `${entry.text}: item ${itemId} has no attachment named ${JSON.stringify(name)}.`,
          ),
        });
      } else if (matches.length > 1) {
        const candidates = matches.map((file) => file.id).sort((a, b) => a - b);
        results.set(index, {
          error: new VaultReferenceError(
            'ambiguous',
            entry.text,
            `${entry.text}: item ${itemId} has ${candidates.length} attachments named ${JSON.stringify(name)} (file ids ${candidates.join(', ')}).`,
            { candidates },
          ),
        });
      } else if (!values) {
        results.set(index, {});
      } else {
        const fileId = matches[0]!.id;
        if (!downloads.has(fileId)) {
          downloads.set(
            fileId,
            client.files.download(fileId, callOptions).then(
              (file) => file.bytes,
              (error: unknown) => {
                if (isVaultError(error, 'not_found')) return undefined;
                throw error;
              },
            ),
          );
        }
      }
    }
  }
  const bytesById = new Map<number, Uint8Array | undefined>();
  await Promise.all(
    [...downloads].map(async ([fileId, promise]) => {
      bytesById.set(fileId, await promise);
    }),
  );
  for (const [itemId, indexes] of wanted) {
    for (const index of indexes) {
      if (results.has(index)) continue;
      const entry = entries[index]!;
      const name = (entry.reference!.field as { file: string }).file;
      const file = (listings.get(itemId) ?? []).find((candidate) => candidate.name === name)!;
      const bytes = bytesById.get(file.id);
      results.set(
        index,
        bytes === undefined
          ? {
              error: new VaultReferenceError(
                'not_found',
                entry.text,
                `${entry.text}: the attachment ${JSON.stringify(name)} of item ${itemId} could not be downloaded (not found).`,
              ),
            }
          : { bytes },
      );
    }
  }
  return results;
}

async function notFoundAsEmpty(listing: Promise<FileInfo[]>): Promise<FileInfo[]> {
  try {
    return await listing;
  } catch (error) {
    if (isVaultError(error, 'not_found')) return [];
    throw error;
  }
}

function finish(entry: Entry, file: FileResult | undefined): ResolvedReference {
  const fail = (error: VaultReferenceError): UnresolvedReference => ({
    ok: false,
    text: entry.text,
    reference: entry.reference,
    error,
  });
  if (entry.error) return fail(entry.error);
  const reference = entry.reference!;
  const item = entry.item!;
  const resolvedItem: ResolvedItem = {
    id: item.id,
    label: item.label,
    folderId: item.folderId,
    path: item.path,
    login: item.login,
  };
  if (typeof reference.field === 'object') {
    if (file?.error) return fail(file.error);
    const bytes = file?.bytes ?? new Uint8Array(0);
    return {
      ok: true,
      text: entry.text,
      reference,
      value: utf8Decoder.decode(bytes),
      bytes,
      item: resolvedItem,
    };
  }
  if (reference.field === 'otp') {
    if (file?.error) return fail(file.error);
    return {
      ok: true,
      text: entry.text,
      reference,
      value: file?.otp?.code ?? '',
      secondsLeft: file?.otp?.secondsLeft,
      bytes: undefined,
      item: resolvedItem,
    };
  }
  if (reference.field === 'password' && item.password === '') {
    return fail(
      new VaultReferenceError(
        'unavailable',
        entry.text,
        `${entry.text}: the vault did not return the password of item ${item.id} (TeamPass cannot decrypt passwords of personal folders through its API).`,
      ),
    );
  }
  return {
    ok: true,
    text: entry.text,
    reference,
    value: item[reference.field],
    bytes: undefined,
    item: resolvedItem,
  };
}
