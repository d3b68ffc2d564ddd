/**
 * The error of references: what went wrong with one reference, named by the reference, never by a
 * value.
 *
 * @module
 */

/** Every code a {@link VaultReferenceError} can carry. */
export const REFERENCE_ERROR_CODES = [
  'invalid_reference',
  'unknown_field',
  'login_required',
  'not_found',
  'ambiguous',
  'forbidden',
  'unavailable',
  'unsupported',
] as const;

/**
 * What went wrong with a reference: `invalid_reference` (it does not follow the grammar),
 * `unknown_field` (not one of the fields), `login_required` (a path needs a login to list folders),
 * `not_found` (no such item or attachment), `ambiguous` (several items or attachments match: see
 * `candidates`), `forbidden` (the login has no right to read it), `unavailable` (the vault did not
 * return the value, e.g. a TeamPass personal-folder password), `unsupported` (the vault has no such
 * values at all: a one-time code or an attachment where it has none).
 */
export type ReferenceErrorCode = (typeof REFERENCE_ERROR_CODES)[number];

/** Options of the {@link VaultReferenceError} constructor. */
export interface VaultReferenceErrorOptions {
  /** The ids of the items (or attachments) that matched, for `ambiguous`. */
  candidates?: readonly number[] | undefined;
  /** Where in the text the problem starts, for `invalid_reference`. */
  offset?: number | undefined;
  /** The underlying error. */
  cause?: unknown;
}

/**
 * A reference that cannot be parsed or resolved. Its message and fields name the reference (its
 * canonical text, or a short quoted excerpt of what was given), never a resolved value.
 */
export class VaultReferenceError extends Error {
  override name = 'VaultReferenceError';
  /** What went wrong. */
  readonly code: ReferenceErrorCode;
  /** The reference as text: canonical when it parsed, a short excerpt otherwise. */
  readonly reference: string;
  /** The ids of the candidates, for `ambiguous`; empty otherwise. */
  readonly candidates: readonly number[];
  /** Where in the reference the problem starts, for `invalid_reference`. */
  readonly offset: number | undefined;

  /**
   * Creates an error.
   *
   * @param code What went wrong.
   * @param reference The reference as text.
   * @param message One line: what was expected, what was received.
   * @param options The details.
   */
  constructor(
    code: ReferenceErrorCode,
    reference: string,
    message: string,
    options: VaultReferenceErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.reference = reference;
    this.candidates = options.candidates ?? [];
    this.offset = options.offset;
  }

  /**
   * A plain object for logs and JSON, without the stack or the cause.
   *
   * @returns The error's fields.
   */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      reference: this.reference,
      message: this.message,
      candidates: this.candidates,
      offset: this.offset,
    };
  }
}

/**
 * Tells whether a value is a {@link VaultReferenceError}, optionally with one of the given codes.
 *
 * @param error The value to test.
 * @param codes The codes to accept; any code when empty.
 * @returns Whether it is such an error.
 */
export function isReferenceError(
  error: unknown,
  ...codes: ReferenceErrorCode[]
): error is VaultReferenceError {
  return error instanceof VaultReferenceError && (codes.length === 0 || codes.includes(error.code));
}
