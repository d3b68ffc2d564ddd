/**
 * How TeamPass 3 counts failed sign-ins, so that a client signing in for many people can stay
 * under its lockout. TeamPass 3.2.1.5 (`app/api/Model/AuthModel.php`, `recordFailedAttempt`)
 * writes one `auth_failures` row per refused sign-in for the login and one for the client's
 * address, and locks either one for `bruteforce_lock_duration` minutes (10) once it has
 * `nb_bad_authentication` (10 where the setting is missing; new installs write 0, off) or
 * `nb_bad_authentication_by_ip` (30) rows; rows go after 24 h,
 * once their lock is over. A sign-in answered "Account temporarily locked" or "Missing
 * credentials" writes no row; a wrong login, password, API key or token writes one whether or
 * not the user exists.
 *
 * @see ./README.md
 * @module
 */

import { escapeSpecialCharsLikeTeamPass } from './html.ts';

/** TeamPass 3's API's default lockout: failures per login and per address in 24 h, then the lock. */
export const TEAMPASS3_SIGN_IN_LOCKOUT: {
  readonly failuresPerLogin: number;
  readonly failuresPerAddress: number;
  readonly windowSeconds: number;
  readonly lockSeconds: number;
} = { failuresPerLogin: 10, failuresPerAddress: 30, windowSeconds: 86_400, lockSeconds: 600 };

const PHP_SPACE = ' \t\n\r\0\x0B';

function phpTrim(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && PHP_SPACE.includes(text[start]!)) start++;
  while (end > start && PHP_SPACE.includes(text[end - 1]!)) end--;
  return text.slice(start, end);
}

/**
 * PHP `strip_tags()`: a `<` followed by anything but white space opens a tag that runs to the
 * next `>` outside quotes (or to the end), comments go whole, NUL bytes go; a `<` followed by
 * white space stays as text.
 */
function phpStripTags(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const char = text[i]!;
    if (char === '\0') {
      i++;
      continue;
    }
    if (char !== '<' || i + 1 >= text.length || /\s/.test(text[i + 1]!)) {
      if (char === '<' && i + 1 >= text.length) break;
      out += char;
      i++;
      continue;
    }
    if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      i = end < 0 ? text.length : end + 3;
      continue;
    }
    let quote: string | undefined;
    i++;
    while (i < text.length) {
      const inner = text[i]!;
      i++;
      if (quote !== undefined) {
        if (inner === quote) quote = undefined;
      } else if (inner === '"' || inner === "'") quote = inner;
      else if (inner === '>') break;
    }
  }
  return out;
}

/** Letters `utf8mb4_unicode_ci` weighs as two (UCA expansions) or as their base letter. */
const EXPANSIONS: Readonly<Record<string, string>> = {
  ß: 'ss',
  ẞ: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  ħ: 'h',
  ı: 'i',
  ł: 'l',
  ŧ: 't',
  þ: 'th',
};

/**
 * The login as TeamPass 3 counts its failed sign-ins: sanitized as `auth/authorize` does
 * (`trim`, `strip_tags`, `htmlspecialchars`, `strip_tags`), then folded the way MariaDB's
 * `utf8mb4_unicode_ci` compares it (case, accents, compatibility forms and ignorable characters
 * do not count; trailing spaces do not count). `victim<i1>`, ` Victim `, `VICTİM` and `victim`
 * are one login to its lockout, so they are one to a count kept in front of it. The fold may
 * join a few logins MariaDB keeps apart, never the other way round.
 *
 * @param login The login as typed.
 * @returns The key it is counted under (empty when TeamPass would see no login).
 */
export function signInLoginKey(login: string): string {
  const sanitized = phpStripTags(escapeSpecialCharsLikeTeamPass(phpStripTags(phpTrim(login))));
  return sanitized
    .normalize('NFKD')
    .replace(/[\p{M}\p{Cc}\p{Default_Ignorable_Code_Point}]/gu, '')
    .toLowerCase()
    .replace(/[ßẞæœøđðħıłŧþ]/gu, (char) => EXPANSIONS[char] ?? char)
    .replace(/ +$/, '');
}
