/**
 * A tool's failure: a code and a message written by the tool, which never hold a value.
 *
 * @module
 */

/** Why a tool did not do what it was asked. */
export type ToolFailureCode =
  | 'bad_input'
  | 'not_found'
  | 'forbidden'
  | 'too_weak'
  | 'exists'
  | 'changed'
  | 'write_failed'
  | 'vault_unavailable'
  | 'unauthorized'
  | 'not_connected'
  | 'failed';

/** A failure the tool reports as its answer (`isError`), in its own words. */
export class ToolFailure extends Error {
  override name = 'ToolFailure';
  /** What went wrong, for the assistant to act on. */
  readonly code: ToolFailureCode;

  /**
   * @param code What went wrong.
   * @param message One line, naming files, folders and items by id, never a value.
   */
  constructor(code: ToolFailureCode, message: string) {
    super(message);
    this.code = code;
  }
}
