import { foldLabel } from '@vaultline/protocol';
import { readItemId } from '../actions/button-args.ts';
import { MAX_REASON_LENGTH } from '../constants.ts';

/**
 * Splits `/vault request` text: a quoted label (`"db main" because …`) or the first word (an id or
 * a one-word label), then the reason.
 *
 * @param text The text after `request`.
 * @returns What names the item, and the reason (cut to its limit).
 */
export function parseRequestText(text: string): { typed: string; reason: string } {
  const trimmed = text.trim();
  const quoted = /^["“]([^"”]+)["”]\s*([\s\S]*)$/.exec(trimmed);
  const [, typed = '', reason = ''] = quoted ?? /^(\S+)\s*([\s\S]*)$/.exec(trimmed) ?? [];
  return { typed: typed.trim(), reason: [...reason.trim()].slice(0, MAX_REASON_LENGTH).join('') };
}

/**
 * What makes two requests of one person the same: the id, or the label as the vault compares
 * labels. What was typed, never the item it names: the key must not tell the requester whether
 * two of their texts name one item.
 *
 * @param typed What was typed.
 * @returns The key.
 */
export function requestKey(typed: string): string {
  const id = readItemId(typed.trim());
  return id === undefined ? `label:${foldLabel(typed)}` : `id:${id}`;
}
