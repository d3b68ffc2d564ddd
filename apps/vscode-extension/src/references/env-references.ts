import { findReferences } from '@vaultline/protocol';

/** One variable of an env file, or of a launch configuration's `env`, whose value holds references. */
export interface EnvReference {
  name: string;
  /** The value as written, references included. */
  value: string;
}

/**
 * The variables of a dotenv text (`NAME=value`, `export NAME=value`, quoted or not, `#` comments)
 * whose values hold at least one reference. Values without references are left to whoever reads
 * the file (the debug adapter, the shell).
 */
export function envFileReferences(text: string): EnvReference[] {
  const out: EnvReference[] = [];
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!match) continue;
    const [, name, raw] = match as unknown as [string, string, string];
    const quoted = /^(["'])(.*)\1$/.exec(raw);
    const value = quoted ? (quoted[2] ?? '') : raw.replace(/\s+#.*$/, '');
    if (findReferences(value).length > 0) out.push({ name, value });
  }
  return out;
}

/**
 * Replaces every reference in a value by its resolved value.
 *
 * @param value The value as written.
 * @param resolved The value of each reference, by its text as written.
 */
export function substituteReferences(value: string, resolved: ReadonlyMap<string, string>): string {
  let out = '';
  let at = 0;
  for (const found of findReferences(value)) {
    const replacement = resolved.get(found.text);
    if (replacement === undefined) continue;
    out += value.slice(at, found.start) + replacement;
    at = found.end;
  }
  return out + value.slice(at);
}

/** Every reference text in some values, once each. */
export function referenceTexts(values: readonly string[]): string[] {
  return [...new Set(values.flatMap((value) => findReferences(value).map((found) => found.text)))];
}
