/**
 * How TeamPass 3 escapes text it stores, and how a client reads it back. TeamPass 3.2.1.5 stores
 * item labels and logins through PHP's `filter_var(…, FILTER_SANITIZE_FULL_SPECIAL_CHARS)`: that
 * is `htmlentities` with `ENT_QUOTES`, the HTML 4.01 table and no double encoding, so every
 * character HTML 4.01 names becomes that name (`Müller` is stored `M&uuml;ller`, `€` `&euro;`,
 * `“` `&ldquo;`), `'` becomes `&#039;`, and Cyrillic, CJK or emoji stay as typed. Folder titles
 * and tags go through `htmlspecialchars` (the five special characters only); descriptions go
 * through voku's AntiXSS, which keeps markup but writes a `<` or `>` it does not take for a safe
 * tag as `&lt;` `&gt;` (and nothing else); passwords, e-mail addresses, URLs and custom fields
 * are stored as sent (after their own sanitizers). Reading decodes every HTML5 entity, named or
 * numeric, except in descriptions, where only AntiXSS's two are read back.
 *
 * @see ./README.md
 * @module
 */

import { decode, encode } from 'html-entities';

/** The five characters `htmlspecialchars` escapes, as PHP writes them with `ENT_QUOTES`. */
const SPECIAL: Readonly<Record<string, string>> = {
  '"': '&quot;',
  "'": '&#039;',
  '<': '&lt;',
  '>': '&gt;',
};

/** An entity already in the text, which PHP leaves alone when double encoding is off. */
const ENTITY_AHEAD = /^&(?:#([0-9]+)|#[xX]([0-9a-fA-F]+)|([A-Za-z0-9]+));/;

/** Whether `&name;` (with the `&` and `;`) is an entity HTML 4.01 knows. */
function isHtml401Entity(entity: string): boolean {
  // The library's HTML 4 level also knows `&apos;`, which HTML 4.01 (and so PHP) does not.
  return entity !== '&apos;' && decode(entity, { level: 'html4', scope: 'strict' }) !== entity;
}

/**
 * Escapes text the way TeamPass stores a label or a login: PHP `htmlentities` with `ENT_QUOTES`
 * and the HTML 4.01 table, without double encoding (`FILTER_SANITIZE_FULL_SPECIAL_CHARS`). An
 * `&` that already starts a valid entity (`&amp;`, `&#039;`) is kept; any other `&` becomes
 * `&amp;`. Searching TeamPass for a label needs this spelling: it compares the stored text.
 *
 * @param text The text as a person typed it.
 * @returns The text as TeamPass stores and answers it.
 */
export function escapeLikeTeamPass(text: string): string {
  return text.replace(/[&"'<>]|[\u{80}-\u{10ffff}]/gu, (char, offset: number) => {
    if (char === '&') {
      const ahead = ENTITY_AHEAD.exec(text.slice(offset, offset + 40));
      if (ahead) {
        const [entity, decimal, hex] = ahead;
        if (decimal !== undefined || hex !== undefined) {
          const code = decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex!, 16);
          if (code <= 0x10ffff) return char;
        } else if (isHtml401Entity(entity)) return char;
      }
      return '&amp;';
    }
    const special = SPECIAL[char];
    if (special) return special;
    // A character without an HTML 4.01 name stays as typed (the library writes a number for it).
    const named = encode(char, { level: 'html4', mode: 'nonAscii' });
    return named.startsWith('&#') ? char : named;
  });
}

/**
 * Escapes text the way TeamPass stores a tag or a folder title: PHP `htmlspecialchars` with
 * `ENT_QUOTES`, double encoding on (`&amp;` becomes `&amp;amp;`).
 *
 * @param text The text as a person typed it.
 * @returns The text as TeamPass stores it.
 */
export function escapeSpecialCharsLikeTeamPass(text: string): string {
  return text.replace(/[&"'<>]/g, (char) => (char === '&' ? '&amp;' : SPECIAL[char]!));
}

/**
 * Decodes the HTML entities TeamPass writes into stored text, once, with the whole HTML5 table:
 * `M&uuml;ller` becomes `Müller`, `Tom &amp; Jerry` `Tom & Jerry`, `&#039;` `'`, `&amp;amp;`
 * `&amp;`. Only entities closed by `;` are read (TeamPass always writes the `;`); an unknown
 * `&…;` is left as it is.
 *
 * @param text The text as TeamPass answered it.
 * @returns The text as a person typed it.
 */
export function decodeTeamPassEntities(text: string): string {
  if (!text.includes('&')) return text;
  return decode(text, { level: 'html5', scope: 'strict' });
}

/**
 * Gives back the `<` and `>` TeamPass's AntiXSS filter wrote into a description as `&lt;` and
 * `&gt;` (an unclosed tag, a comment, a tag it disarms). It writes no other entity, and keeps `&`
 * and markup as sent, so nothing else is decoded.
 *
 * @param text The description as TeamPass answered it.
 * @returns The description as it was sent.
 */
export function decodeAntiXssBrackets(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(lt|gt);/g, (_, name: string) => (name === 'lt' ? '<' : '>'));
}
