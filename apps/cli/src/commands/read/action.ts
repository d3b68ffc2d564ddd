/**
 * What runs for the commands declared in ./command.ts, loaded only when one of them runs.
 *
 * @module
 */

import {
  decodeId,
  EXIT,
  formatReference,
  isReferenceError,
  OTP_FIELD,
  parseReference,
  REFERENCE_FIELDS,
  type Reference,
  type ReferenceField,
  type ResolvedValue,
} from '@vaultline/protocol';
import type { Command } from 'commander';

import { type CommandContext, connectionOption, warnTo } from '../../context.ts';
import { CliError } from '../../errors.ts';
import { printable } from '../../output.ts';
import { assertResolved, resolveAll } from '../../resolve.ts';
import { withSpinner } from '../../spinner.ts';

/** The fields `get <id>` shows: everything but the password. */
const SHOWN_FIELDS = REFERENCE_FIELDS.filter((field) => field !== 'password');

/**
 * Reads `--field`: parsed as the last segment of a reference, and refused in its own words (not
 * those of the reference it was parsed in, whose id is no one's).
 */
function parseField(text: string): ReferenceField {
  const probe = `vaultline://1/${text}`;
  try {
    return parseReference(probe).field;
  } catch (error) {
    if (!isReferenceError(error)) throw error;
    const reason = error.message.startsWith(`${JSON.stringify(probe)}: `)
      ? error.message.slice(JSON.stringify(probe).length + 2)
      : `expected one of ${[...REFERENCE_FIELDS, OTP_FIELD].join(', ')} or file:<name>.`;
    throw new CliError(
      error.code,
      `--field ${JSON.stringify(text.slice(0, 40))}: ${reason}`,
      EXIT.reference,
      {
        cause: error,
      },
    );
  }
}

function parseTarget(text: string): { reference: Reference | undefined; id: number | undefined } {
  if (/^[0-9]+$/.test(text)) {
    try {
      return { reference: undefined, id: decodeId(text) };
    } catch {
      throw new CliError(
        'invalid_reference',
        `Expected an item id or a reference, received ${JSON.stringify(text.slice(0, 40))}.`,
        EXIT.reference,
      );
    }
  }
  return { reference: parseReference(text), id: undefined };
}

async function resolveOne(
  context: CommandContext,
  command: Command,
  reference: Reference,
  json: boolean | undefined,
): Promise<ResolvedValue> {
  const resolution = await withSpinner(
    'Reading…',
    () => resolveAll(context.env, [reference], connectionOption(command), warnTo(context.output)),
    { json },
  );
  assertResolved(resolution.failures);
  const result = resolution.results.get(formatReference(reference));
  if (!result?.ok)
    throw new CliError('not_found', `${formatReference(reference)}: not resolved.`, EXIT.reference);
  return result;
}

/** A value as `--json` prints it. */
function jsonOf(result: ResolvedValue) {
  return result.bytes === undefined
    ? {
        reference: result.text,
        value: result.value,
        // A one-time code says how long it stays valid.
        ...(result.secondsLeft === undefined ? {} : { secondsLeft: result.secondsLeft }),
      }
    : {
        reference: result.text,
        file: (result.reference.field as { file: string }).file,
        base64: Buffer.from(result.bytes).toString('base64'),
      };
}

function printValue(
  context: CommandContext,
  result: ResolvedValue,
  options: { json?: boolean; newline?: boolean },
) {
  const { output } = context;
  if (options.json) {
    output.json(jsonOf(result));
    return;
  }
  if (result.bytes !== undefined) output.out(result.bytes);
  else output.out(options.newline === false ? result.value : `${result.value}\n`);
}

/**
 * What `read` does. Several references (Ansible's lookup, scripts) are resolved in one batch and
 * printed as one JSON array in the order given; every failure is one line of the error.
 */
export const readAction =
  (context: CommandContext) =>
  async (texts: string[], options: { json?: boolean; newline?: boolean }, command: Command) => {
    const references = texts.map((text) => parseReference(text));
    if (references.length === 1) {
      printValue(context, await resolveOne(context, command, references[0]!, options.json), options);
      return;
    }
    if (!options.json) {
      throw new CliError(
        'usage',
        'Several references need --json: values may hold newlines, so only a JSON array keeps them apart.',
        EXIT.usage,
      );
    }
    const resolution = await withSpinner(
      'Reading…',
      () => resolveAll(context.env, references, connectionOption(command), warnTo(context.output)),
      { json: true },
    );
    assertResolved(resolution.failures);
    context.output.json(
      references.map((reference) => {
        const result = resolution.results.get(formatReference(reference));
        if (!result?.ok)
          throw new CliError('not_found', `${formatReference(reference)}: not resolved.`, EXIT.reference);
        return jsonOf(result);
      }),
    );
  };

/** What `get` does. */
export const getAction =
  (context: CommandContext) =>
  async (text: string, options: { field?: string; json?: boolean; newline?: boolean }, command: Command) => {
    const { reference, id } = parseTarget(text);
    const field = options.field === undefined ? undefined : parseField(options.field);
    if (reference) {
      const chosen = field === undefined ? reference : { ...reference, field };
      printValue(context, await resolveOne(context, command, chosen, options.json), options);
      return;
    }
    if (field !== undefined) {
      printValue(
        context,
        await resolveOne(context, command, { kind: 'id', id: id!, field }, options.json),
        options,
      );
      return;
    }
    const references = SHOWN_FIELDS.map((name): Reference => ({ kind: 'id', id: id!, field: name }));
    const resolution = await withSpinner(
      'Reading…',
      () => resolveAll(context.env, references, connectionOption(command), warnTo(context.output)),
      options,
    );
    // The fields come from one read of the item: one failure says it for all of them.
    assertResolved(resolution.failures.slice(0, 1));
    const values: Record<string, string> = {};
    let item: ResolvedValue['item'] | undefined;
    for (const ref of references) {
      const result = resolution.results.get(formatReference(ref));
      if (result?.ok) {
        values[ref.field as string] = result.value;
        item = result.item;
      }
    }
    const shown = {
      id: id!,
      ...values,
      path: item?.path ?? [],
      folderId: item?.folderId,
      reference: formatReference({ kind: 'id', id: id!, field: 'password' }),
    };
    if (options.json) {
      context.output.json(shown);
      return;
    }
    const lines = [
      ['id', String(shown.id)],
      ...SHOWN_FIELDS.map((name) => [name, values[name] ?? '']),
      ['path', shown.path.join('/')],
      ['password', shown.reference],
    ];
    const width = Math.max(...lines.map(([name]) => name!.length));
    context.output.out(
      `${lines.map(([name, value]) => `${name!.padEnd(width)}  ${printable(value!)}`).join('\n')}\n`,
    );
  };
