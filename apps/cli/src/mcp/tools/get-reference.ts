/**
 * `get_reference`, and the words for a reference that does not resolve.
 *
 * @module
 */

import {
  checkReferences,
  formatReference,
  OTP_FIELD,
  REFERENCE_FIELDS,
  type Reference,
  type ReferenceCheck,
  type ReferenceField,
  referenceToItem,
} from '@vaultline/protocol';
import { ToolFailure } from '../failure.ts';
import { UNTRUSTED_NOTICE, untrusted } from '../untrusted.ts';
import type { Answer, ToolContext } from './context.ts';

/** The fields `get_reference` accepts, besides `file:<name>`. */
export const FIELD_NAMES = [...REFERENCE_FIELDS, OTP_FIELD] as const;

/**
 * Reads a field name as a reference holds it: a value's name, `otp`, or `file:<name>` (the name
 * as it is, not escaped).
 */
export function parseFieldName(text: string): ReferenceField {
  if ((FIELD_NAMES as readonly string[]).includes(text)) return text as ReferenceField;
  if (text.startsWith('file:') && text.length > 5) return { file: text.slice(5) };
  throw new ToolFailure('bad_input', `Unknown field: expected ${FIELD_NAMES.join(', ')} or file:<name>.`);
}

/** A reference that does not resolve, in the tool's words. */
export function checkFailure(check: Extract<ReferenceCheck, { ok: false }>): ToolFailure {
  const code = check.error.code;
  const mapped =
    code === 'forbidden'
      ? 'forbidden'
      : code === 'not_found' || code === 'ambiguous'
        ? 'not_found'
        : 'bad_input';
  return new ToolFailure(mapped, untrusted(check.error.message));
}

/**
 * `get_reference`: the references (by id and by path) to a field of an item the user may read,
 * after checking that they resolve (without reading the value).
 */
export async function referenceTool(
  context: ToolContext,
  input: {
    itemId?: number | undefined;
    folderPath?: string[] | undefined;
    label?: string | undefined;
    field: string;
  },
): Promise<Answer> {
  const field = parseFieldName(input.field);
  let reference: Reference;
  if (input.itemId !== undefined) {
    if (input.folderPath !== undefined || input.label !== undefined)
      throw new ToolFailure('bad_input', 'Give either itemId, or folderPath with label, not both.');
    reference = { kind: 'id', id: input.itemId, field };
  } else if (input.folderPath !== undefined && input.folderPath.length > 0 && input.label !== undefined) {
    reference = { kind: 'path', folders: input.folderPath, label: input.label, field };
  } else {
    throw new ToolFailure('bad_input', 'Give itemId, or folderPath (at least one folder) with label.');
  }
  let text: string;
  try {
    text = formatReference(reference);
  } catch (error) {
    throw new ToolFailure('bad_input', untrusted((error as Error).message));
  }
  const [check] = await checkReferences(context.connection.client, [reference]);
  if (!check) throw new ToolFailure('failed', 'The reference could not be checked.');
  if (!check.ok) throw checkFailure(check);
  const byPath = referenceToItem(check.item, field, { form: 'path' });
  // A reference by path spells the vault's titles and label: vault text, inside `data`, bounded.
  return {
    notice: UNTRUSTED_NOTICE,
    reference: formatReference({ kind: 'id', id: check.item.id, field }),
    byId: formatReference({ kind: 'id', id: check.item.id, field }),
    asked: untrusted(text),
    item: {
      id: check.item.id,
      folderId: check.item.folderId,
      data: {
        label: untrusted(check.item.label),
        folderPath: check.item.path.map(untrusted),
        byPath: byPath.kind === 'path' ? untrusted(formatReference(byPath)) : null,
      },
    },
  };
}
