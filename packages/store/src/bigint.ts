/**
 * `bigint` columns (ids, epoch milliseconds, sizes, counts) read as JavaScript numbers on both
 * engines, exactly: a value a number cannot hold exactly is an error, never a rounded number.
 *
 * @module
 */

/** PostgreSQL's type OID of `bigint` (`int8`). */
export const INT8_OID = 20;

/**
 * Reads a `bigint` as PostgreSQL sends it in text form.
 *
 * @param text The digits, with an optional sign.
 * @returns The number.
 * @throws {RangeError} Beyond ±(2^53 − 1): the statement's result fails instead of holding a
 *   rounded id.
 */
export function parseBigint(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value))
    throw new RangeError(`A bigint column holds ${text}, beyond what a number holds exactly (±2^53 − 1).`);
  return value;
}
