/**
 * What the database announces when data that instances cache changes, whoever wrote it: another
 * instance, the `vaultline-server` admin commands, an import, or SQL run by hand. Triggers (schema
 * migration 5) send a notification on {@link CHANGES_CHANNEL} when the statement's transaction
 * commits; every instance on PostgreSQL listens and forgets what changed, so its caches stay
 * coherent within the notification's delay instead of the cache time.
 *
 * @module
 */

/** The notification channel (an SQL identifier: also written into the migration). */
export const CHANGES_CHANNEL = 'vaultline_changes';

/** The most item ids one notification names; more become "every item" (payloads stop at 8000 bytes). */
export const MAX_NOTIFIED_IDS = 300;

/** `items:` then ids as the database prints bigints: digits, no sign, no leading zero. */
const ITEM_IDS = /^items:([1-9]\d{0,15}(?:,[1-9]\d{0,15})*)$/;

/** What changed. */
export type Change =
  /** Folders, users, roles, rights or keys: what decides who may read what. */
  | { readonly kind: 'access' }
  /** Items updated or deleted: these ids, or every item. */
  | { readonly kind: 'items'; readonly ids: readonly number[] | 'all' };

/**
 * Reads a notification's payload: `access`, `items:*` or `items:1,2,3`.
 *
 * @param payload What the trigger sent.
 * @returns The change, or undefined for anything else (never trusted blindly: it is only a hint to
 *   forget cached rows, and an unknown one makes the listener forget everything).
 */
export function parseChange(payload: string | undefined): Change | undefined {
  if (payload === 'access') return { kind: 'access' };
  if (payload === 'items:*') return { kind: 'items', ids: 'all' };
  const listed = payload === undefined ? null : ITEM_IDS.exec(payload);
  if (!listed) return undefined;
  const ids = listed[1]!.split(',').map(Number);
  return ids.every((id) => Number.isSafeInteger(id)) ? { kind: 'items', ids } : undefined;
}

/** What a listener is told. */
export interface ChangeHandlers {
  /** A change committed by any writer. */
  onChange(change: Change): void;
  /**
   * Whether changes are being received: false when the listening connection is lost (caches that
   * rely on the announcements must stop filling), true again once it listens anew (announcements
   * were missed in between: forget everything).
   */
  onLive(live: boolean): void;
}

/** A subscription to the announcements. */
export interface ChangeFeed {
  /** Whether announcements are being received now. */
  readonly live: boolean;
  /** Since when `live` holds: the last loss or return, or the start. */
  readonly since: Date;
  /** Stops listening. */
  close(): Promise<void>;
}
