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

/** Why a `conflict` happened, where the API tells the cases apart (TeamPass's "Label already exists"). */
export type StoreConflictReason = 'similar_label';

/** An error of the store. Its message is safe to show: never a key, a password or a value. */
export class StoreError extends Error {
  override name = 'StoreError';
  /** What kind of failure. */
  readonly kind: StoreErrorKind;
  /** For a `conflict`: what it collided with, when the API names it. */
  readonly reason: StoreConflictReason | undefined;

  /**
   * @param kind What kind of failure.
   * @param message What happened, for the caller.
   * @param reason For a `conflict`: what it collided with.
   */
  constructor(kind: StoreErrorKind, message: string, reason?: StoreConflictReason) {
    super(message);
    this.kind = kind;
    this.reason = reason;
  }
}

/** Shorthand: the input breaks a rule. */
export function invalid(message: string): StoreError {
  return new StoreError('invalid', message);
}

/** Shorthand: the thing does not exist, or the caller may not see it. */
export function notFound(message: string): StoreError {
  return new StoreError('not_found', message);
}

/** Shorthand: the caller may see the thing but not do this. */
export function refused(message: string): StoreError {
  return new StoreError('refused', message);
}

/** Shorthand: the change collides with the vault's state. */
export function conflict(message: string, reason?: StoreConflictReason): StoreError {
  return new StoreError('conflict', message, reason);
}

/** Tells whether a value is a {@link StoreError}. */
export function isStoreError(value: unknown): value is StoreError {
  return value instanceof StoreError;
}
