/**
 * TeamPass 2's `new_password`, as the replay fake generates it.
 *
 * @module
 */

import { randomIndex } from '../../password-generator.ts';

/**
 * What TeamPass 2.1.27.36 generates for `new_password` (its api/functions.php and
 * ComputerPasswordGenerator): upper- and lower-case letters and digits always, look-alikes always
 * left out, symbols when `secure` is 1, or when `symbols` and `base64` both are; the length
 * `size`, 8 when empty or 0; base64-encoded when `base64` is 1.
 *
 * @param params The `;`-joined parameters of the request.
 * @returns The body TeamPass sends.
 */
export function teampassNewPassword(params: string): string {
  const values = params.split(';');
  const on = (index: number) => values[index] === '1';
  const size = Number.parseInt(values[0] ?? '', 10) || 8;
  const symbols = on(1) || (on(5) && on(6));
  const alphabet = (
    'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789' +
    (symbols ? '!@$%^&*()<>,.?/[]{}-=_+' : '')
  ).replace(/[iIl1Oo0]/g, '');
  let password = '';
  for (let i = 0; i < size; i++) password += alphabet[randomIndex(alphabet.length)];
  // TeamPass writes the JSON by hand, with a space around the colon.
  return `{"password" : "${on(6) ? Buffer.from(password).toString('base64') : password}"}`;
}
