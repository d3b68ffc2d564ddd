/**
 * What runs for the commands declared in ./command.ts, loaded only when one of them runs.
 *
 * @module
 */

import {
  EXIT,
  estimateBits,
  generatePassword,
  PASSWORD_LENGTH,
  type PasswordRules,
} from '@vaultline/protocol';
import type { Command } from 'commander';
import type { CommandContext } from '../../context.ts';
import { CliError } from '../../errors.ts';
import { withSpinner } from '../../spinner.ts';
import { findFolder, withSession } from '../../writing.ts';

interface GenerateOptions {
  folder?: string;
  length?: string;
  upper: boolean;
  digits: boolean;
  symbols: boolean;
  ambiguous?: boolean;
  json?: boolean;
}

function parseLength(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const length = /^[0-9]{1,4}$/.test(text) ? Number(text) : Number.NaN;
  if (!(length >= PASSWORD_LENGTH.min && length <= PASSWORD_LENGTH.max))
    throw new CliError(
      'invalid_length',
      `Expected --length of ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max}, received ${JSON.stringify(text.slice(0, 20))}.`,
      EXIT.usage,
    );
  return length;
}

/** What `generate` does. */
export const generateAction =
  (context: CommandContext) => async (options: GenerateOptions, command: Command) => {
    const length = parseLength(options.length);
    let folderId: number | undefined;
    let complexityLevel: number | undefined;
    if (options.folder !== undefined) {
      const text = options.folder;
      const placed = await withSpinner(
        'Reading the folder…',
        () =>
          withSession(context, command, 'generate --folder', async (session) =>
            findFolder(await session.folders(), text, session.login),
          ),
        options,
      );
      folderId = placed.folder.id;
      // A folder whose rule the vault does not say gets the strongest (the generator's default).
      complexityLevel = placed.folder.complexityLevel ?? (length === undefined ? undefined : 90);
    }
    const rules: PasswordRules = {
      length,
      complexityLevel,
      upper: options.upper,
      digits: options.digits,
      symbols: options.symbols,
      ambiguous: options.ambiguous,
    };
    let password: string;
    try {
      password = generatePassword(rules);
    } catch (error) {
      throw new CliError('invalid_rules', (error as Error).message, EXIT.usage, { cause: error });
    }
    if (options.json) {
      context.output.json({
        password,
        length: password.length,
        bits: Math.floor(estimateBits(password)),
        ...(complexityLevel === undefined ? {} : { complexityLevel }),
        ...(folderId === undefined ? {} : { folderId }),
      });
      return;
    }
    context.output.out(`${password}\n`);
  };
