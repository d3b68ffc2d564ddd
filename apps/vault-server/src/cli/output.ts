/**
 * How `vaultline-server` shows results: tables, JSON lines, and text made safe for a terminal.
 *
 * @module
 */

import { neutralizeText } from '@vaultline/protocol';
import type { CliIo } from './context.ts';

/**
 * Text for the terminal, line by line: what it echoes can neither drive the terminal nor reorder a
 * line.
 *
 * @param text The text.
 * @returns The text, its line breaks kept.
 */
export function printable(text: string): string {
  return text.split('\n').map(neutralizeText).join('\n');
}

function table(rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return '(none)\n';
  const columns = Object.keys(rows[0]!);
  const cells = rows.map((row) => columns.map((column) => String(row[column] ?? '')));
  const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((cell) => cell[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((value, i) => value.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return `${[line(columns), ...cells.map(line)].join('\n')}\n`;
}

/**
 * Writes a list: a table, or with `--json` one JSON record per line.
 *
 * @param io Where it goes.
 * @param json Whether `--json` was given.
 * @param rows The table's rows.
 * @param records The JSON records.
 */
export function list(
  io: CliIo,
  json: boolean | undefined,
  rows: Record<string, unknown>[],
  records: unknown[],
): void {
  if (json) io.out(records.map((record) => `${JSON.stringify(record)}\n`).join(''));
  else io.out(table(rows));
}
