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
