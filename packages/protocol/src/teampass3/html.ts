/**
 * How TeamPass 3 escapes text it stores, and how a client reads it back. TeamPass runs item labels
 * and logins through PHP's `htmlspecialchars` with `ENT_QUOTES` (`&` `"` `'` `<` `>` become
 * `&amp;` `&quot;` `&#039;` `&lt;` `&gt;`), folder titles through `strip_tags` first, tags through
 * `htmlspecialchars`; descriptions and passwords are stored as sent.
 *
 * @see ./README.md
 * @module
 */

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '"': '&quot;',
  "'": '&#039;',
  '<': '&lt;',
  '>': '&gt;',
};

/**
 * Escapes text the way TeamPass stores a label or a login (PHP `htmlspecialchars` with
 * `ENT_QUOTES`, double encoding on: `&amp;` becomes `&amp;amp;`).
 *
 * @param text The text as a person typed it.
 * @returns The text as TeamPass stores and answers it.
 */
export function escapeLikeTeamPass(text: string): string {
  return text.replace(/[&"'<>]/g, (char) => ESCAPES[char]!);
}

/** Named entities a TeamPass answer can hold (what `htmlspecialchars` writes, and `&nbsp;`). */
const NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
};

/**
 * Decodes the HTML entities TeamPass writes into stored text, once: `Tom &amp; Jerry` becomes
 * `Tom & Jerry`, `&amp;amp;` becomes `&amp;`. Numeric entities (`&#039;`, `&#x27;`) and the named
 * ones `htmlspecialchars` produces are decoded; any other `&…;` is left as it is.
 *
 * @param text The text as TeamPass answered it.
 * @returns The text as a person typed it.
 */
export function decodeTeamPassEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z]{2,6});/g, (entity, body: string) => {
    if (body.startsWith('#')) {
      const code =
        body[1] === 'x' || body[1] === 'X'
          ? Number.parseInt(body.slice(2), 16)
          : Number.parseInt(body.slice(1), 10);
      if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) || code === 0) return entity;
      return String.fromCodePoint(code);
    }
    return NAMED[body] ?? entity;
  });
}
