/**
 * The import's shapes: its options, its summary, and the snapshot its read phase hands to its
 * write phase.
 *
 * @module
 */

import type { AccessType } from '@vaultline/protocol';
import type { ItemValues } from '@vaultline/protocol/wire';
import type { ImportedKind } from '../store/import-map.ts';
import type { ItemExtras } from '../store/items.ts';

/** Options of an import. */
export interface ImportOptions {
  /** The source's base URL (the part before `/api/index.php`). */
  from: string;
  /**
   * The source's API key: sent to the source only, never printed nor logged. On TeamPass 3, the
   * signing-in account's personal API key.
   */
  apiKey: string;
  /**
   * The signing-in account's password, where the source signs in per user (TeamPass 3): a secret
   * like the key, sent only in the sign-in body.
   */
  password?: string | undefined;
  /**
   * The logins whose folders (and rights) are copied: the API lists folders per user only. On a
   * source where every call runs as the signed-in account (TeamPass 3), exactly one: that account.
   */
  logins: readonly string[];
  /** Reads the source and reports what would be added, without writing. */
  dryRun: boolean;
  /** The `fetch` for the source; the global one by default. */
  fetch?: typeof globalThis.fetch | undefined;
  /**
   * Reads attachments from a source that does not say whether it has file endpoints (a
   * TeamPass-compatible server: TeamPass 2 has none, a fork does), with one `read/listfiles` per
   * item. Without it such a source's attachments are named as skipped, and nothing is asked.
   */
  attachments?: boolean | undefined;
  /** Told how far the import is: `done` of `total` steps of a phase. */
  onProgress?: ((phase: string, done: number, total: number) => void) | undefined;
}

/** Counts of one kind of thing: added now, and already here from an earlier run. */
export interface ImportCount {
  added: number;
  existing: number;
}

/** What a source's folder, item or attachment became here. */
export interface ImportedId {
  readonly kind: ImportedKind;
  /** Its id in the source. */
  readonly source: number;
  /**
   * Its id here; in a dry run, the id it would get if nothing is added here before the import, and
   * `undefined` for an attachment (its id is drawn when it is added).
   */
  readonly id: number | undefined;
}

/** What an import did (or, dry, would do). */
export interface ImportSummary {
  /** The source's URL, without credentials or query. */
  source: string;
  dryRun: boolean;
  folders: ImportCount;
  items: ImportCount;
  /** How many of the items added carry a TOTP secret, and custom fields (sealed like passwords). */
  carried: { otp: number; fields: number };
  files: ImportCount;
  /** Users created here, and users that were here already. */
  users: ImportCount;
  /** Rights set on the logins' roles (one role per login, `imported:<login>`). */
  rights: ImportCount;
  /**
   * The ids of what was added: how many folders and items kept their source id, and every one
   * that got another (its source id is taken here; attachments always get new ids).
   */
  ids: { kept: number; changed: ImportedId[] };
  /** What was not imported, and why. */
  skipped: { what: string; reason: string }[];
}

/** A source folder to create here. */
export interface PlannedFolder {
  readonly sourceId: number;
  /** Its source id is free here (when the read phase looked): it keeps it. */
  readonly keepId: boolean;
  readonly title: string;
  /** The source parent, when it is imported too; else the root. */
  readonly sourceParent: number | undefined;
  readonly level: number;
}

/** A source item to add here, with its values as add/item takes them, but its folder. */
export interface PlannedItem {
  readonly sourceId: number;
  /** Its source id is free here (when the read phase looked): it keeps it. */
  readonly keepId: boolean;
  readonly sourceFolder: number;
  readonly values: Omit<ItemValues, 'folderId'>;
  /** Its TOTP secret and custom fields, where the source sent them. */
  readonly extras: ItemExtras;
}

/** A source attachment to add here, its bytes already read. */
export interface PlannedFile {
  readonly sourceId: number;
  readonly sourceItem: number;
  readonly name: string;
  readonly mediaType: string;
  readonly bytes: Uint8Array;
}

/** What to do for one login: the user, its `imported:<login>` role, and the rights it gets. */
export interface PlannedLogin {
  readonly login: string;
  /** The user is missing here. */
  readonly create: boolean;
  /** The user does not hold the role yet. */
  readonly assign: boolean;
  /** The role exists already. */
  readonly roleExists: boolean;
  /** Source folder and right, each. */
  readonly grants: readonly (readonly [number, AccessType])[];
}

/**
 * What the read phase found and decided, as plain data: what to add here, and what earlier runs
 * added already (source id → id here). The write phase applies it as it is.
 */
export interface ImportSnapshot {
  /** The source, as the import map names it. */
  readonly source: string;
  readonly summary: ImportSummary;
  /** New folders, parents first. */
  readonly folders: readonly PlannedFolder[];
  readonly items: readonly PlannedItem[];
  readonly files: readonly PlannedFile[];
  readonly logins: readonly PlannedLogin[];
  /** What earlier runs imported, still present here: source id → id here. */
  readonly imported: {
    readonly folders: ReadonlyMap<string, number>;
    readonly items: ReadonlyMap<string, number>;
  };
}
