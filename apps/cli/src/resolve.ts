/**
 * Resolving the references of a command: grouped by connection, one `resolveReferences` batch per
 * connection, every failure collected (so people see all of them at once), values kept in memory;
 * with `--cache-max-age`, also sealed on disk for when the vault cannot be reached (the core's
 * `resolveWithFallback`).
 *
 * @module
 */

import {
  EXIT,
  formatReference,
  type Reference,
  type ResolvedReference,
  resolveReferences,
  type VaultReferenceError,
} from '@vaultline/protocol';
import { parseMaxAge, resolveWithFallback, valueCache } from '@vaultline/value-cache';
import { ENV } from './constants.ts';
import type { CliEnvironment } from './env.ts';
import { CliError } from './errors.ts';
import { withConnections } from './reach.ts';

/** Resolved values by canonical reference text, and the connections used. */
export interface Resolution {
  /** The resolved references by canonical text (those the vault answered). */
  readonly results: ReadonlyMap<string, ResolvedReference>;
  /** Every value by canonical text: the vault's, or the cached ones when it could not be reached. */
  readonly values: ReadonlyMap<string, string>;
  /** The failures, in the order given. */
  readonly failures: readonly VaultReferenceError[];
  /** Removes the API keys of every connection used from text. */
  readonly redact: (text: string) => string;
}

/**
 * Resolves references against their connections: those that name one (`work@…`) against it, the
 * others against `connection` (the `--connection` option) or the default.
 *
 * @param env The environment.
 * @param references The references.
 * @param connectionName The connection for references that name none.
 * @param warn Told about a session token cache that cannot be used, and about cached values used.
 * @param options The fallback for outages, when on.
 * @returns The results.
 */
export async function resolveAll(
  env: CliEnvironment,
  references: readonly Reference[],
  connectionName: string | undefined,
  warn?: (message: string) => void,
  options: ResolveOptions = {},
): Promise<Resolution> {
  const groups = new Map<string | undefined, Map<string, Reference>>();
  for (const reference of references) {
    const name = reference.connection ?? connectionName;
    const group = groups.get(name) ?? new Map<string, Reference>();
    group.set(formatReference(reference), reference);
    groups.set(name, group);
  }
  const results = new Map<string, ResolvedReference>();
  const values = new Map<string, string>();
  const { fallback } = options;
  const groupList = [...groups];
  // The session tokens stay cached for the next command.
  const redactors = await withConnections(
    env,
    groupList.map(([name]) => name),
    warn,
    async (connection, index) => {
      const group = groupList[index]![1];
      const cache =
        fallback === undefined
          ? undefined
          : valueCache({
              dir: env.cacheDir,
              url: connection.url,
              login: connection.login,
              credentials: connection.credentials,
              maxAgeMs: fallback.maxAgeMs,
              warn,
            });
      const resolved = await resolveWithFallback(
        [...group.keys()],
        // The login acted for is the client's (the core's rule), none for a key alone.
        () => resolveReferences(connection.client, [...group.values()]),
        { cache, warn },
      );
      for (const result of resolved) {
        if (result.ok) values.set(result.text, result.value);
        if (!('recalled' in result)) results.set(result.text, result);
      }
      return connection.redact;
    },
  );
  const failures: VaultReferenceError[] = [];
  for (const reference of references) {
    const result = results.get(formatReference(reference));
    if (result && !result.ok && !failures.includes(result.error)) failures.push(result.error);
  }
  return {
    results,
    values,
    failures,
    redact: (text) => redactors.reduce((out, redact) => redact(out), text),
  };
}

/** Options of {@link resolveAll}. */
export interface ResolveOptions {
  /** Keep the values sealed on disk and use them, up to this age, when the vault cannot be reached. */
  fallback?: { readonly maxAgeMs: number } | undefined;
}

/**
 * The fallback of `--cache-max-age` (or `VAULTLINE_CACHE_MAX_AGE`), when one is given.
 *
 * @param option The option's value.
 * @param env The environment.
 * @returns The fallback, or `undefined` when off.
 * @throws {CliError} `usage` (exit 2) for a duration that does not parse.
 */
export function fallbackOption(option: string | undefined, env: CliEnvironment): ResolveOptions['fallback'] {
  const text = option ?? env.all[ENV.cacheMaxAge];
  if (text === undefined || text === '') return undefined;
  try {
    return { maxAgeMs: parseMaxAge(text) };
  } catch (error) {
    throw new CliError('usage', `--cache-max-age: ${(error as Error).message}`, EXIT.usage);
  }
}

/**
 * Fails with every failure, one per line.
 *
 * @param failures The failures.
 * @param context What each failure is about (e.g. the variable), by reference text.
 * @throws {CliError} `reference` (exit 3) when there is any failure.
 */
export function assertResolved(
  failures: readonly VaultReferenceError[],
  context: (reference: string) => string = () => '',
): void {
  if (failures.length === 0) return;
  const lines = failures.map((failure) => `${context(failure.reference)}${failure.message}`);
  const code = failures.length === 1 ? failures[0]!.code : 'references';
  throw new CliError(code, lines.join('\n'), EXIT.reference, { cause: failures[0] });
}
