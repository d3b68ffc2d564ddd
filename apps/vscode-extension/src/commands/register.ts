import * as vscode from 'vscode';
import { UserFacingError, userMessage } from '../error-messages.ts';
import type { Notifier } from '../notifier.ts';
import type { RequestLog } from '../request-log.ts';
import type { VaultlineCommand } from './command.ts';

/**
 * Registers commands with one error boundary: a failure becomes one plain sentence in a
 * notification and a log line, and the command resolves with `undefined`.
 *
 * @returns The registrations, to dispose with the extension.
 */
export function registerCommands(
  commands: readonly VaultlineCommand[],
  log: RequestLog,
  notifier: Notifier,
): vscode.Disposable[] {
  return commands.map(({ id, action, run }) =>
    vscode.commands.registerCommand(id, async (...args: unknown[]) => {
      try {
        return await run(...args);
      } catch (error) {
        const message = userMessage(error, action);
        log.error(message);
        notifier.error(message, error instanceof UserFacingError ? error.actions : []);
        return undefined;
      }
    }),
  );
}
