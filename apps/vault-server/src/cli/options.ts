/**
 * Parsers of option values: a bad value is a usage error (exit code 2) with a message that says
 * what was expected.
 *
 * @module
 */

import { ACCESS_TYPES, type AccessType } from '@vaultline/protocol';
import { InvalidArgumentError } from 'commander';

/**
 * A parser of a whole number from 1 to `max`.
 *
 * @param name The option, for the message.
 * @param max The largest value.
 * @returns The parser.
 */
export function positiveInteger(name: string, max: number): (text: string) => number {
  return (text: string): number => {
    if (!/^[1-9][0-9]{0,15}$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) > max) {
      throw new InvalidArgumentError(`Expected ${name} to be a whole number from 1 to ${max}.`);
    }
    return Number(text);
  };
}

/** Parses `--access`: one of the core's rights. */
export function accessType(text: string): AccessType {
  const found = ACCESS_TYPES.find((access) => access === text);
  if (found === undefined)
    throw new InvalidArgumentError(`Expected --access to be one of ${ACCESS_TYPES.join(', ')}.`);
  return found;
}

/** Collects a repeatable option's values. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
