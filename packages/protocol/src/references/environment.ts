/**
 * References in an environment (`vaultline run`'s, a CI step's): which variables hold which
 * references, and the environment with their values put in. One reading for the CLI and the
 * GitHub Action, so both resolve a step's variables the same way. Host-free.
 *
 * @see ../../../../docs/references.md
 * @module
 */

import { type FoundReference, findReferences } from './find-references.ts';
import { formatReference, type Reference } from './reference.ts';
import { VaultReferenceError } from './reference-error.ts';

/** The references of an environment, by variable. */
export interface EnvironmentReferences {
  /** The variables that hold references, with the references found in each, in order. */
  readonly variables: ReadonlyMap<string, readonly FoundReference[]>;
  /** Every reference, in the order found (repeats kept). */
  readonly references: readonly Reference[];
  /**
   * The variables that hold a reference.
   *
   * @param text The reference, canonical (as {@link formatReference} writes it) or as written.
   * @returns The variables' names; empty when none holds it.
   */
  variablesOf(text: string): readonly string[];
}

/**
 * Finds the references in the values of an environment.
 *
 * @param environment The variables.
 * @returns The references, by variable.
 * @throws {VaultReferenceError} `invalid_reference` (or the parse error's code) for the first
 *   reference that does not parse, its message starting with the variable's name.
 */
export function findEnvironmentReferences(
  environment: Readonly<Record<string, string>>,
): EnvironmentReferences {
  const variables = new Map<string, FoundReference[]>();
  const references: Reference[] = [];
  const names = new Map<string, string[]>();
  for (const [name, value] of Object.entries(environment)) {
    if (!value.includes('vaultline://')) continue;
    const matches = findReferences(value);
    for (const match of matches) {
      if (match.error) {
        throw new VaultReferenceError(match.error.code, match.text, `${name}: ${match.error.message}`, {
          cause: match.error,
        });
      }
      references.push(match.reference!);
      for (const key of new Set([match.text, formatReference(match.reference!)])) {
        const list = names.get(key) ?? [];
        if (!list.includes(name)) list.push(name);
        names.set(key, list);
      }
    }
    const rest = matches.reduceRight(
      (value, match) => value.slice(0, match.start) + value.slice(match.end),
      value,
    );
    if (rest.includes('vaultline://'))
      throw new VaultReferenceError(
        'invalid_reference',
        'vaultline://',
        `${name}: holds vaultline:// where no reference can be read; nothing was started.`,
      );
    variables.set(name, matches);
  }
  return { variables, references, variablesOf: (text) => names.get(text) ?? [] };
}

/** A variable with its references replaced. */
export interface FilledVariable {
  /** The variable's name. */
  readonly name: string;
  /** Its value with every reference replaced. */
  readonly value: string;
  /** The values put in (the secrets in it), in order. */
  readonly secrets: readonly string[];
}

/**
 * Puts the values of the references into the variables that hold them.
 *
 * @param environment The variables.
 * @param found What {@link findEnvironmentReferences} found in them.
 * @param lookup The value of a reference by its canonical text; `undefined` when it did not resolve.
 * @returns The variables that held references, with their values put in.
 * @throws {VaultReferenceError} `not_found` for a reference with no value.
 */
export function fillEnvironment(
  environment: Readonly<Record<string, string>>,
  found: EnvironmentReferences,
  lookup: (text: string) => string | undefined,
): FilledVariable[] {
  const filled: FilledVariable[] = [];
  for (const [name, matches] of found.variables) {
    let value = environment[name] ?? '';
    const secrets: string[] = [];
    // From the end, so that earlier ranges stay valid.
    for (const match of [...matches].reverse()) {
      const resolved = lookup(formatReference(match.reference!));
      if (resolved === undefined)
        throw new VaultReferenceError('not_found', match.text, `${name}: ${match.text} did not resolve.`);
      value = value.slice(0, match.start) + resolved + value.slice(match.end);
      secrets.unshift(resolved);
    }
    filled.push({ name, value, secrets });
  }
  return filled;
}
