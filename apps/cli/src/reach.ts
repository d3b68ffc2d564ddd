/**
 * How a command reaches the vault: the one place that opens connections for commands
 * ({@link reach}), and the forms a command uses it in: {@link withConnection} for the command's
 * connection, {@link withConnections} for several at once (references can name several), and a
 * {@link Reach} held open for a long-lived process (`vaultline mcp`). Every connection opened is
 * closed when the command is done (its session token stays cached for the next command), and a
 * failure gets the words of the connection it happened on.
 *
 * @module
 */

import type { Command } from 'commander';
import { type Connection, openConnection } from './connection.ts';
import { type CommandContext, connectionOption, warnTo } from './context.ts';
import type { CliEnvironment } from './env.ts';

/** The connections a command opened: each opened here, all closed together when it is done. */
export interface Reach {
  /**
   * Opens a connection. Nothing is sent until the first call.
   *
   * @param name The connection's name; the default one when absent.
   * @returns The connection.
   * @throws {CliError} `no_connection` or `no_key` (exit 4).
   */
  open(name: string | undefined): Promise<Connection>;
  /** Closes every connection opened so far, keeping their session tokens for the next command. */
  close(): Promise<void>;
}

/**
 * Where a command's connections are opened and closed.
 *
 * @param env The environment.
 * @param warn Told about a session token cache (or an exchanged key's cache) that cannot be used.
 * @returns The reach.
 */
export function reach(env: CliEnvironment, warn?: (message: string) => void): Reach {
  const opened: Connection[] = [];
  return {
    async open(name) {
      const connection = await openConnection(env, name, { warn });
      opened.push(connection);
      return connection;
    },
    async close() {
      await Promise.all(opened.splice(0).map((connection) => connection.close()));
    },
  };
}

/**
 * Opens several connections at once, runs the work on each, and closes them all when every one
 * is done; the first failure in the order named is thrown, in the words of its connection.
 *
 * @param env The environment.
 * @param names The connections' names (`undefined` for the default one).
 * @param warn Told about a session token cache that cannot be used.
 * @param work The work on one connection, with the index of its name.
 * @returns What the work returned, in the order named.
 */
export async function withConnections<T>(
  env: CliEnvironment,
  names: readonly (string | undefined)[],
  warn: ((message: string) => void) | undefined,
  work: (connection: Connection, index: number) => Promise<T>,
): Promise<T[]> {
  const vault = reach(env, warn);
  try {
    const settled = await Promise.allSettled(
      names.map(async (name, index) => {
        const connection = await vault.open(name);
        try {
          return await work(connection, index);
        } catch (error) {
          throw await connection.explain(error);
        }
      }),
    );
    const failed = settled.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    return settled.map((outcome) => (outcome as PromiseFulfilledResult<T>).value);
  } finally {
    await vault.close();
  }
}

/**
 * Opens the command's connection (`--connection`, or the default), runs the work and always
 * closes it; a failure gets the connection's words.
 *
 * @param context The environment and output.
 * @param command The running command (for --connection).
 * @param work The work.
 * @returns What the work returned.
 */
export async function withConnection<T>(
  context: CommandContext,
  command: Command,
  work: (connection: Connection) => Promise<T>,
): Promise<T> {
  const [result] = await withConnections(
    context.env,
    [connectionOption(command)],
    warnTo(context.output),
    work,
  );
  return result as T;
}
