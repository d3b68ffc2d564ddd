/**
 * Resolving the references of a command: grouped by connection, one `resolveReferences` batch per
 * connection, every failure collected (so people see all of them at once), values kept in memory.
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
import { type Connection, openConnection } from './connection.ts';

import type { CliEnvironment } from './env.ts';
import { CliError } from './errors.ts';

/** Resolved values by canonical reference text, and the connections used. */
export interface Resolution {
  /** The resolved references by canonical text. */
  readonly results: ReadonlyMap<string, ResolvedReference>;
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
 * @param warn Told about a session token cache that cannot be used.
 * @returns The results.
 */
export async function resolveAll(
  env: CliEnvironment,
  references: readonly Reference[],
  connectionName: string | undefined,
  warn?: (message: string) => void,
): Promise<Resolution> {
  const groups = new Map<string | undefined, Map<string, Reference>>();
  for (const reference of references) {
    const name = reference.connection ?? connectionName;
    const group = groups.get(name) ?? new Map<string, Reference>();
    group.set(formatReference(reference), reference);
    groups.set(name, group);
  }
  const connections: Connection[] = [];
  const results = new Map<string, ResolvedReference>();
  try {
    const settled = await Promise.allSettled(
      [...groups].map(async ([name, group]) => {
        const connection = await openConnection(env, name, { warn });
        connections.push(connection);
        try {
          const resolved = await resolveReferences(connection.client, [...group.values()], {
            login: await connection.optionalActingLogin(),
          });
          for (const result of resolved) results.set(result.text, result);
        } catch (error) {
          throw await connection.explain(error);
        }
      }),
    );
    const failed = settled.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
  } finally {
    // The session tokens stay cached for the next command.
    await Promise.all(connections.map((connection) => connection.close()));
  }
  const failures: VaultReferenceError[] = [];
  for (const reference of references) {
    const result = results.get(formatReference(reference));
    if (result && !result.ok && !failures.includes(result.error)) failures.push(result.error);
  }
  return {
    results,
    failures,
    redact: (text) => connections.reduce((out, connection) => connection.redact(out), text),
  };
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
