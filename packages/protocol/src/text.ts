/**
 * Text rules shared by every part: how labels are folded to be compared.
 *
 * @module
 */

/**
 * The form in which labels are compared, for search and for the "similar label" rule: without
 * accents, case, compatibility variants and surrounding spaces (`"  Café  "` → `"cafe"`).
 *
 * @param label The label or search text.
 * @returns The folded text.
 */
export function foldLabel(label: string): string {
  return label.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().trim();
}

/**
 * The longest search text, in characters (Unicode code points): the Vaultline server refuses
 * longer ones (400), the core's search refuses them before sending, and adapters (the Slack bot)
 * check it up front. The one search-length limit.
 */
export const MAX_SEARCH_LENGTH = 100;
