/**
 * The store's own errors: what went wrong in the vault's terms, never an HTTP status. The HTTP
 * layer maps each kind to a status and an API error code in one place.
 *
 * @module
 */

/** What kind of failure a store operation met. */
export type StoreErrorKind =
  /** The input breaks a rule of the vault (too long, a NUL, an unknown parent…). */
  | 'invalid'
  /** The thing does not exist, or the caller may not see it. */
  | 'not_found'
  /** The caller may see the thing but not do this to it. */
  | 'refused'
  /** The change collides with the vault's state (a similar label, a non-empty folder, a race). */
  | 'conflict'
  /** The input is over a size limit. */
  | 'too_large';

/**
 * Why, where the API tells the cases apart in TeamPass's words: a `conflict` with a similar label
 * ("Label already exists"), a `not_found` user ("User does not exist") or folder an item or a
 * folder is placed in ("Folder ID does not exist"), more folders than one delete/folder takes
 * ("No folder specified").
 */
export type StoreErrorReason = 'similar_label' | 'unknown_user' | 'unknown_folder' | 'too_many_folders';

/** An error of the store. Its message is safe to show: never a key, a password or a value. */
export class StoreError extends Error {
  override name = 'StoreError';
  /** What kind of failure. */
  readonly kind: StoreErrorKind;
  /** Why, when the API names it. */
  readonly reason: StoreErrorReason | undefined;

  /**
   * @param kind What kind of failure.
   * @param message What happened, for the caller.
   * @param reason Why, when the API names it.
   */
  constructor(kind: StoreErrorKind, message: string, reason?: StoreErrorReason) {
    super(message);
    this.kind = kind;
    this.reason = reason;
  }
}

/** Shorthand: the input breaks a rule. */
export function invalid(message: string, reason?: 'too_many_folders'): StoreError {
  return new StoreError('invalid', message, reason);
}

/** Shorthand: the thing does not exist, or the caller may not see it. */
export function notFound(message: string, reason?: 'unknown_user' | 'unknown_folder'): StoreError {
  return new StoreError('not_found', message, reason);
}

/** Shorthand: the caller may see the thing but not do this. */
export function refused(message: string): StoreError {
  return new StoreError('refused', message);
}

/** Shorthand: the change collides with the vault's state. */
export function conflict(message: string, reason?: 'similar_label'): StoreError {
  return new StoreError('conflict', message, reason);
}

/** Tells whether a value is a {@link StoreError}. */
export function isStoreError(value: unknown): value is StoreError {
  return value instanceof StoreError;
}
