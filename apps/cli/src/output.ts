/**
 * Writing results: text for people, one JSON document for scripts. Every line passes through the
 * connection's redactor, so an API key can never be printed.
 *
 * @module
 */

import { replaceUnsafeCharacters } from '@vaultline/protocol';

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

/** The widest a column is padded to: a longer cell is shown whole, widening its own row only. */
export const COLUMN_WIDTH_CAP = 40;

/**
 * Lays rows out in columns, for people: each column as wide as its longest cell, at most
 * {@link COLUMN_WIDTH_CAP}.
 *
 * @param rows The rows, the first one the header.
 * @returns The text, one line per row.
 */
export function columns(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) {
    for (const [index, cell] of row.entries())
      widths[index] = Math.min(COLUMN_WIDTH_CAP, Math.max(widths[index] ?? 0, cell.length));
  }
  return rows
    .map((row) =>
      row.map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index]!))).join('  '),
    )
    .join('\n');
}

/**
 * Makes text safe for a terminal: every character of the core's one rule for text from outside
 * (controls, which carry the escape sequences a hostile label could hold, line and paragraph
 * separators, format characters such as bidi overrides, zero-width characters or tag characters,
 * invisible fillers) is shown as `\u{…}`.
 *
 * @param text The text.
 * @returns The safe text.
 */
export function printable(text: string): string {
  return replaceUnsafeCharacters(text, (char) => `\\u{${char.codePointAt(0)!.toString(16)}}`);
}
