/** Language ids of dotenv files (VS Code's own, and the name some extensions give it). */
export const DOTENV_LANGUAGES: ReadonlySet<string> = new Set(['dotenv', 'env']);

/** One variable of a dotenv text. */
export interface DotenvEntry {
  name: string;
  /** The value as dotenv reads it: unquoted, comment cut off, `\n` expanded in double quotes. */
  value: string;
  /** Where the value is written: inside its quotes, without the spaces and comment around it. */
  start: number;
  end: number;
  /** Its quote, when it is quoted. */
  quote: '"' | "'" | '`' | undefined;
}

/** A variable's start: `NAME=`, `NAME = `, `export NAME=` or `NAME: ` at the start of a line. */
const KEY = /^[ \t]*(?:export[ \t]+)?([\w.-]+)(?:[ \t]*=[ \t]*|:[ \t]+)/gm;

/**
 * Reads a dotenv text as the `dotenv` package and Node's `--env-file` do, so that what Vaultline
 * stores, resolves or puts in a terminal is what the program reading the file gets: an unquoted
 * value ends at the first `#` (a comment, even without a space before it) and is trimmed; a
 * quoted value (`"`, `'` or `` ` ``, which may span lines) is taken whole, `#` included, and in
 * double quotes `\n` and `\r` become line breaks. A later line of the same name wins when the
 * entries become an environment.
 *
 * @param text The file's text.
 * @returns Its variables, in file order.
 * @see https://github.com/motdotla/dotenv#what-rules-does-the-parsing-engine-follow
 */
export function parseDotenv(text: string): DotenvEntry[] {
  const out: DotenvEntry[] = [];
  KEY.lastIndex = 0;
  for (let match = KEY.exec(text); match; match = KEY.exec(text)) {
    const name = match[1]!;
    const at = KEY.lastIndex;
    const quote = text[at];
    if (quote === '"' || quote === "'" || quote === '`') {
      const close = closingQuote(text, at + 1, quote);
      // Only spaces and a comment may follow the closing quote on its line.
      const rest = close < 0 ? '' : text.slice(close + 1, lineEnd(text, close + 1));
      if (close >= 0 && /^[ \t]*(?:#.*)?$/.test(rest)) {
        const raw = text.slice(at + 1, close);
        out.push({
          name,
          value: quote === '"' ? raw.replace(/\\n/g, '\n').replace(/\\r/g, '\r') : raw,
          start: at + 1,
          end: close,
          quote,
        });
        KEY.lastIndex = lineEnd(text, close + 1);
        continue;
      }
    }
    const end = lineEnd(text, at);
    const hash = text.indexOf('#', at);
    const cut = hash >= 0 && hash < end ? hash : end;
    const raw = text.slice(at, cut);
    const value = raw.trim();
    const start = at + (raw.length - raw.trimStart().length);
    out.push({ name, value, start, end: start + value.length, quote: undefined });
    KEY.lastIndex = end;
  }
  return out;
}

/**
 * A dotenv text as an environment: each name once, the last line of a name winning.
 *
 * @param text The file's text.
 * @returns Names and values, in the order names first appear.
 */
export function dotenvVariables(text: string): Map<string, string> {
  const variables = new Map<string, string>();
  for (const entry of parseDotenv(text)) variables.set(entry.name, entry.value);
  return variables;
}

function lineEnd(text: string, from: number): number {
  const end = text.indexOf('\n', from);
  const stop = end < 0 ? text.length : end;
  return stop > from && text[stop - 1] === '\r' ? stop - 1 : stop;
}

/** The index of the quote that closes a value (a backslash escapes one), or -1. */
function closingQuote(text: string, from: number, quote: string): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] === '\\' && text[i + 1] === quote) i++;
    else if (text[i] === quote) return i;
  }
  return -1;
}
