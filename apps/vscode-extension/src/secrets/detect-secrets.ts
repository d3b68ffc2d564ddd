import { DOTENV_LANGUAGES, parseDotenv } from '../dotenv.ts';
import {
  ASSIGNMENT_RULES,
  type AssignmentRule,
  DESCRIPTIVE_NAME_ENDINGS,
  PLACEHOLDERS,
  SECRET_RULES,
} from './rules.ts';

/** A literal that looks like a credential. Offsets are UTF-16 indexes into the scanned text. */
export interface SecretFinding {
  /** The rule's id (`github-token`, `password-assignment`, …). */
  ruleId: string;
  /** What was found, in words. */
  title: string;
  /** Start of the literal (inside quotes, if any). */
  start: number;
  /** End of the literal, exclusive. */
  end: number;
  /** The literal itself. */
  secret: string;
  /** The name it is assigned to, when there is one (`DB_PASSWORD`): the label proposed for the item. */
  name?: string;
}

export interface DetectOptions {
  /**
   * The document's language id. In configuration-like languages (`dotenv`, `yaml`, `properties`, …)
   * unquoted values count; in code only string literals do (`password = getPassword()` is code).
   */
  languageId?: string;
}

/** Languages whose values are written without quotes (dotenv files have their own reader). */
const UNQUOTED_LANGUAGES: ReadonlySet<string> = new Set([
  'properties',
  'ini',
  'yaml',
  'toml',
  'shellscript',
  'dockerfile',
  'dockercompose',
  'plaintext',
  'makefile',
  'java-properties',
]);

/** Where a name may contain a credential word: the cheap first pass of the assignment rules. */
const NAME_KEYWORDS = /pass|pwd|pw|secret|token|key|cred|auth|pat|bearer|sas|pswd/gi;
/** Characters of a name (`DB_PASSWORD`, `spring.datasource.password`, `api-key`). */
function isNameChar(code: number): boolean {
  return (
    (code >= 97 && code <= 122) || // a-z
    (code >= 65 && code <= 90) || // A-Z
    (code >= 48 && code <= 57) || // 0-9
    code === 95 || // _
    code === 46 || // .
    code === 45 // -
  );
}
/** After a name: an optional closing quote (JSON, PHP arrays), an assignment operator, a value. */
const ASSIGNMENT =
  /["']?[ \t]*(?:===?|:=|=>|\?\?=|\|\|=|=|:)[ \t]*(?:(?<quote>["'`])(?<quoted>(?:(?!\k<quote>)[^\\\r\n]|\\.){1,512})\k<quote>|(?<bare>[^\s"'`]{1,512})(?=(?:[ \t]+(?:#|;|\/\/).*)?[ \t]*(?:\r?\n|$)))/y;

/**
 * Finds credential-like literals in a text: the known token formats of {@link SECRET_RULES}, then
 * strings assigned to credential-like names that look random enough ({@link ASSIGNMENT_RULES}).
 * Host-free and synchronous: runs in the extension host, a web worker or plain Node.
 *
 * @param text The document's text.
 * @param options The document's language.
 * @returns The findings, ordered by position, never overlapping.
 */
export function detectSecrets(text: string, options: DetectOptions = {}): SecretFinding[] {
  const lower = text.toLowerCase();
  const found: SecretFinding[] = [];
  for (const rule of SECRET_RULES) {
    if (!rule.keywords.some((keyword) => lower.includes(keyword))) continue;
    rule.pattern.lastIndex = 0;
    for (let match = rule.pattern.exec(text); match; match = rule.pattern.exec(text)) {
      const span = match.indices?.groups?.secret ?? [match.index, match.index + match[0].length];
      const secret = text.slice(span[0], span[1]);
      if (rule.verify && !rule.verify(secret)) continue;
      if (rule.id !== 'private-key' && isPlaceholder(match.groups?.password ?? secret)) continue;
      if (overlaps(found, span[0], span[1])) continue;
      found.push({ ruleId: rule.id, title: rule.title, start: span[0], end: span[1], secret });
    }
  }
  const languageId = options.languageId ?? 'plaintext';
  if (DOTENV_LANGUAGES.has(languageId)) return withDotenvAssignments(text, found);
  const unquoted = UNQUOTED_LANGUAGES.has(languageId);
  for (const finding of findAssignments(text, unquoted)) {
    if (!overlaps(found, finding.start, finding.end)) found.push(finding);
  }
  return found.sort((a, b) => a.start - b.start);
}

/**
 * A dotenv file is read as dotenv reads it ({@link parseDotenv}): a literal is the value a program
 * gets, so an unquoted value stops at `#`. A token found across that `#` is not what the program
 * reads, and is dropped.
 */
function withDotenvAssignments(text: string, formats: SecretFinding[]): SecretFinding[] {
  const entries = parseDotenv(text);
  const found = formats.filter(
    (finding) =>
      !entries.some(
        (entry) =>
          entry.quote === undefined &&
          finding.start >= entry.start &&
          finding.start < entry.end &&
          finding.end > entry.end,
      ),
  );
  const rules = new Map<string, AssignmentRule | undefined>();
  for (const entry of entries) {
    if (!rules.has(entry.name)) rules.set(entry.name, ruleForName(entry.name));
    const rule = rules.get(entry.name);
    if (!rule || entry.end <= entry.start) continue;
    if (entry.quote === '`' && entry.value.includes('${')) continue;
    if (!looksLikeCredential(entry.value, rule)) continue;
    if (overlaps(found, entry.start, entry.end)) continue;
    found.push({
      ruleId: rule.id,
      title: rule.title,
      start: entry.start,
      end: entry.end,
      secret: entry.value,
      name: entry.name,
    });
  }
  return found.sort((a, b) => a.start - b.start);
}

function findAssignments(text: string, unquoted: boolean): SecretFinding[] {
  const out: SecretFinding[] = [];
  const keywords = new RegExp(NAME_KEYWORDS.source, NAME_KEYWORDS.flags);
  // Names repeat within a file: each is classified once.
  const rules = new Map<string, AssignmentRule | undefined>();
  for (let hit = keywords.exec(text); hit; hit = keywords.exec(text)) {
    let start = hit.index;
    while (start > 0 && isNameChar(text.charCodeAt(start - 1))) start--;
    let end = hit.index + hit[0].length;
    while (end < text.length && isNameChar(text.charCodeAt(end))) end++;
    keywords.lastIndex = end;
    const name = text.slice(start, end).replace(/^[.-]+|[.-]+$/g, '');
    let rule = rules.get(name);
    if (!rules.has(name)) {
      rule = ruleForName(name);
      rules.set(name, rule);
    }
    if (!rule) continue;
    ASSIGNMENT.lastIndex = end;
    const value = ASSIGNMENT.exec(text);
    if (!value?.groups) continue;
    const quoted = value.groups.quoted;
    const literal = quoted ?? (unquoted ? value.groups.bare : undefined);
    if (literal === undefined) continue;
    if (quoted !== undefined && value.groups.quote === '`' && quoted.includes('${')) continue;
    if (!looksLikeCredential(literal, rule)) continue;
    const literalEnd = ASSIGNMENT.lastIndex - (quoted !== undefined ? 1 : 0);
    out.push({
      ruleId: rule.id,
      title: rule.title,
      start: literalEnd - literal.length,
      end: literalEnd,
      secret: literal,
      name,
    });
    keywords.lastIndex = ASSIGNMENT.lastIndex;
  }
  return out;
}

/** Splits `dbPassword`, `DB_PASSWORD`, `spring.datasource.password`, `api-key` into lower-case words. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

function ruleForName(name: string): AssignmentRule | undefined {
  const words = nameWords(name);
  const last = words.at(-1);
  if (last === undefined || DESCRIPTIVE_NAME_ENDINGS.has(last)) return undefined;
  return ASSIGNMENT_RULES.find(
    (rule) =>
      words.some((word) => rule.words.includes(word)) ||
      (rule.pairs ?? []).some(([first, second]) =>
        words.some((word, i) => word === first && words[i + 1] === second),
      ),
  );
}

function looksLikeCredential(value: string, rule: AssignmentRule): boolean {
  if (value.length < rule.minLength || /\s/.test(value)) return false;
  if (isPlaceholder(value)) return false;
  // Plain numbers, and words joined by one separator (`read-write`, `snake_case_name`), are settings.
  if (/^[0-9.]+$/.test(value) || /^[a-z]+(?:[-_.][a-z]+)*$/.test(value)) return false;
  if (/^(?:https?|file):\/\/[^@]*$/i.test(value)) return false;
  return characterClasses(value) >= rule.minClasses && shannonEntropy(value) >= rule.minEntropy;
}

/** Whether a value stands for a credential instead of being one (see {@link PLACEHOLDERS}). */
export function isPlaceholder(value: string): boolean {
  return PLACEHOLDERS.some((pattern) => pattern.test(value));
}

/** How many of lower-case letters, upper-case letters, digits and other characters occur. */
export function characterClasses(value: string): number {
  return (
    Number(/[a-z]/.test(value)) +
    Number(/[A-Z]/.test(value)) +
    Number(/[0-9]/.test(value)) +
    Number(/[^A-Za-z0-9]/.test(value))
  );
}

/** Shannon entropy of the characters of a string, in bits per character. */
export function shannonEntropy(value: string): number {
  const counts = new Map<string, number>();
  for (const char of value) counts.set(char, (counts.get(char) ?? 0) + 1);
  const length = [...value].length;
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

function overlaps(found: readonly SecretFinding[], start: number, end: number): boolean {
  return found.some((finding) => finding.start < end && start < finding.end);
}
