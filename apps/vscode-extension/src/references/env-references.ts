import { findReferences } from '@vaultline/protocol';
import { dotenvVariables } from '../dotenv.ts';

/** One variable of an env file, or of a launch configuration's `env`, whose value holds references. */
export interface EnvReference {
  name: string;
  /** The value as written, references included. */
  value: string;
}

/**
 * The variables of a dotenv text whose values hold at least one reference, read as dotenv reads
 * them ({@link parseDotenv}). Values without references are left to whoever reads the file (the
 * debug adapter, the shell).
 */
export function envFileReferences(text: string): EnvReference[] {
  return envFileVariables(text).filter(({ value }) => findReferences(value).length > 0);
}

/** Every variable of a dotenv text, each name once (the last line of a name wins). */
export function envFileVariables(text: string): EnvReference[] {
  return [...dotenvVariables(text)].map(([name, value]) => ({ name, value }));
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
