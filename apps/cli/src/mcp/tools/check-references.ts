/**
 * `check_references`.
 *
 * @module
 */

import { checkReferences, findReferences, formatReference } from '@vaultline/protocol';
import { ToolFailure } from '../failure.ts';
import { readTextFile } from '../files.ts';
import { UNTRUSTED_NOTICE, untrusted } from '../untrusted.ts';
import { type Answer, position, type ToolContext } from './context.ts';

/** The most references one check looks at. */
export const MAX_CHECKED_REFERENCES = 500;

/**
 * `check_references`: every reference in a file or a text, whether it resolves for this user and,
 * when not, why; resolved without reading any value.
 */
export async function checkTool(
  context: ToolContext,
  input: { file?: string | undefined; text?: string | undefined },
): Promise<Answer> {
  if ((input.file === undefined) === (input.text === undefined))
    throw new ToolFailure('bad_input', 'Give either file or text.');
  const text = input.file !== undefined ? (await readTextFile(context.root, input.file)).text : input.text!;
  const found = findReferences(text).slice(0, MAX_CHECKED_REFERENCES);
  const parsed = found.filter((entry) => entry.reference !== undefined);
  const checks =
    parsed.length === 0
      ? []
      : await checkReferences(
          context.connection.client,
          parsed.map((entry) => entry.reference!),
        );
  const byText = new Map(checks.map((check) => [check.text, check]));
  const references = found.map((entry) => {
    const where = position(text, entry.start);
    if (!entry.reference)
      return {
        ...where,
        data: { reference: untrusted(entry.text) },
        resolves: false,
        problem: entry.error?.code ?? 'invalid_reference',
        why: untrusted(entry.error?.message ?? 'It does not follow the grammar.'),
      };
    const check = byText.get(formatReference(entry.reference));
    if (!check?.ok)
      return {
        ...where,
        data: { reference: untrusted(entry.text) },
        resolves: false,
        problem: check?.error.code ?? 'not_found',
        why: untrusted(check?.error.message ?? 'Not checked.'),
      };
    return {
      ...where,
      data: { reference: untrusted(entry.text) },
      resolves: true,
      item: {
        id: check.item.id,
        data: { label: untrusted(check.item.label), folderPath: check.item.path.map(untrusted) },
      },
    };
  });
  return {
    notice: UNTRUSTED_NOTICE,
    references,
    resolving: references.filter((entry) => entry.resolves).length,
    failing: references.filter((entry) => !entry.resolves).length,
  };
}
