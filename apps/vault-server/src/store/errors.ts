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

/** An error of the store. Its message is safe to show: never a key, a password or a value. */
export class StoreError extends Error {
  override name = 'StoreError';
  /** What kind of failure. */
  readonly kind: StoreErrorKind;

  /**
   * @param kind What kind of failure.
   * @param message What happened, for the caller.
   */
  constructor(kind: StoreErrorKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

/** Tells whether a value is a {@link StoreError}. */
export function isStoreError(value: unknown): value is StoreError {
  return value instanceof StoreError;
}
