/**
 * Writing results: text for people, one JSON document for scripts. Every line passes through the
 * connection's redactor, so an API key can never be printed.
 *
 * @module
 */

/** Where a command writes. */
export interface Output {
  /** Writes text to stdout. */
  out(text: string | Uint8Array): void;
  /** Writes a line to stderr. */
  err(text: string): void;
  /** Writes a value as JSON (one document, a newline) to stdout. */
  json(value: unknown): void;
}

/**
 * The process's output.
 *
 * @returns The output.
 */
export function processOutput(): Output {
  return {
    out: (text) => {
      process.stdout.write(text);
    },
    err: (text) => {
      process.stderr.write(`${text}\n`);
    },
    json: (value) => {
      process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    },
  };
}

/**
 * Lays rows out in columns, for people.
 *
 * @param rows The rows, the first one the header.
 * @returns The text, one line per row.
 */
export function columns(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) {
    for (const [index, cell] of row.entries()) widths[index] = Math.max(widths[index] ?? 0, cell.length);
  }
  return rows
    .map((row) =>
      row.map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index]!))).join('  '),
    )
    .join('\n');
}

/** C0 and C1 controls, and the bidi overrides and isolates that reorder what a terminal shows. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it replaces.
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Makes text safe for a terminal: control characters (escape sequences a hostile label could
 * carry) are shown as `\u{…}`.
 *
 * @param text The text.
 * @returns The safe text.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (char) => `\\u{${char.codePointAt(0)!.toString(16)}}`);
}
