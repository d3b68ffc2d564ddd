/**
 * How TeamPass 2 reads what a request carries, as the replay fake emulates it: its base64 values,
 * the nine values of an item, MySQL's comparison of text, multipart bodies.
 *
 * @module
 */

import type { SeenRequest, StoredItem } from './types.ts';

/** How MySQL's utf8_general_ci compares: without case and accents. */
export function similarText(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}

/** Decodes one TP value: base64 with `-_` or `+/`, padding or none (TP uses base64_decode). */
export function tpDecode(value: string): string {
  return Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
}

/** The nine values of an item segment, decoded. */
export interface ItemValues {
  label: string;
  pw: string;
  description: string;
  folderId: string;
  login: string;
  email: string;
  link: string;
  tags: string;
  anyone: string;
}

/** The nine values of an item segment, decoded, in TeamPass's order. */
export function itemValues(values: readonly string[]): ItemValues {
  const [
    label = '',
    pw = '',
    description = '',
    folderId = '',
    login = '',
    email = '',
    link = '',
    tags = '',
    anyone = '',
  ] = values.map(tpDecode);
  return { label, pw, description, folderId, login, email, link, tags, anyone };
}

/**
 * The columns TeamPass writes for an item's nine values.
 *
 * @param values The decoded values.
 * @returns The stored columns, without the id.
 */
export function itemColumns(values: ItemValues): Omit<StoredItem, 'id' | 'deleted'> {
  return {
    label: values.label,
    pw: values.pw,
    description: values.description,
    folder_id: values.folderId,
    login: values.login,
    email: values.email,
    url: values.link,
    tags: values.tags,
    anyone_can_modify: values.anyone,
  };
}

/**
 * Parses a multipart/form-data request body with the platform's own parser.
 *
 * @param request The request as seen.
 * @returns The form.
 */
export function parseMultipart(request: SeenRequest): Promise<FormData> {
  return new Request('http://replay/', {
    method: 'POST',
    headers: { 'content-type': String(request.headers['content-type'] ?? '') },
    body: new Uint8Array(request.body),
  }).formData();
}
