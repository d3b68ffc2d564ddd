/**
 * The one password generator: random passwords from the Web Crypto generator (the same in Node, a
 * browser and a web worker), each character drawn without bias, every class asked for at least
 * once, long enough for a folder's complexity level. The VS Code extension generates with it, the
 * Vaultline server answers `new_password` with it, and the client's `generatePassword` reaches it
 * over the API. Also how strong a password is, for the same levels.
 *
 * @see ../../../docs/spec.md §4.5
 * @module
 */

import { VaultError } from './errors.ts';

/**
 * The characters each class draws from. Look-alikes (`l`, `I`, `O`, `0`, `1`) are left out unless
 * asked for ({@link PasswordRules.ambiguous}); the symbols hold no `;`, `/` or quotes, since
 * values travel in URL paths and get pasted into shells and config files.
 */
export const PASSWORD_CHARACTERS = {
  lower: 'abcdefghijkmnopqrstuvwxyz',
  upper: 'ABCDEFGHJKLMNPQRSTUVWXYZ',
  digit: '23456789',
  symbol: '!#$%&*+-=?@^_~.,:',
} as const;

/** The look-alikes each class gets back with {@link PasswordRules.ambiguous}. */
const AMBIGUOUS = { lower: 'l', upper: 'IO', digit: '01', symbol: '' } as const;

/** The shortest and longest password the generator makes (TeamPass documents 4 to 50). */
export const PASSWORD_LENGTH = { min: 4, max: 128 } as const;

/** The shortest password made when no length is asked. */
const DEFAULT_MIN_LENGTH = 16;

/**
 * Entropy, in bits, asked for each folder complexity level (0 Very weak … 90 Very heavy). The API
 * does not say how a server scores strength, so each level is mapped to a generous floor.
 */
const BITS_FOR_LEVEL: ReadonlyArray<readonly [number, number]> = [
  [90, 128],
  [80, 110],
  [70, 90],
  [60, 72],
  [50, 60],
  [25, 48],
  [0, 40],
];

/**
 * The entropy a folder complexity level requires.
 *
 * @param complexityLevel The level (0, 25, 50, 60, 70, 80, 90); unknown or absent gets the strongest.
 * @returns Bits.
 */
export function requiredBits(complexityLevel: number | undefined): number {
  if (complexityLevel === undefined) return BITS_FOR_LEVEL[0]![1];
  for (const [level, bits] of BITS_FOR_LEVEL) if (complexityLevel >= level) return bits;
  return BITS_FOR_LEVEL[BITS_FOR_LEVEL.length - 1]![1];
}

/**
 * How many characters each kind has when a password's strength is estimated: every printable
 * ASCII character of the kind, since a person may type any of them.
 */
export const POOL_SIZES = { lower: 26, upper: 26, digit: 10, symbol: 33 } as const;

/** A kind of character of {@link POOL_SIZES}. */
export type CharacterKind = keyof typeof POOL_SIZES;

/**
 * The kinds of characters a password uses.
 *
 * @param password The password.
 * @returns Its kinds, in the order of {@link POOL_SIZES}.
 */
export function characterKinds(password: string): CharacterKind[] {
  const kinds: CharacterKind[] = [];
  if (/[a-z]/.test(password)) kinds.push('lower');
  if (/[A-Z]/.test(password)) kinds.push('upper');
  if (/[0-9]/.test(password)) kinds.push('digit');
  if (/[^a-zA-Z0-9]/.test(password)) kinds.push('symbol');
  return kinds;
}

/**
 * Estimates a password's entropy from its length and the kinds of characters it uses.
 *
 * @param password The password.
 * @returns Bits: an upper bound for passwords people choose.
 */
export function estimateBits(password: string): number {
  const pool = characterKinds(password).reduce((sum, kind) => sum + POOL_SIZES[kind], 0);
  return pool === 0 ? 0 : [...password].length * Math.log2(pool);
}

/**
 * Tells whether a password reaches a folder's complexity level.
 *
 * @param password The password.
 * @param complexityLevel The folder's level; absent means the strongest.
 * @returns Whether it does.
 */
export function meetsComplexity(password: string, complexityLevel: number | undefined): boolean {
  return estimateBits(password) >= requiredBits(complexityLevel);
}

/** What a generated password is made of. Every field is optional; the defaults make the strongest. */
export interface PasswordRules {
  /**
   * The length, {@link PASSWORD_LENGTH} `min` to `max`. Absent: the shortest that reaches the
   * complexity level with the classes asked, and at least 16.
   */
  length?: number | undefined;
  /**
   * A folder complexity level the password must reach (`0` … `90`). Absent: the strongest when no
   * length is given; no floor when a length is given.
   */
  complexityLevel?: number | undefined;
  /** Upper-case letters. Default true. Lower-case letters are always used. */
  upper?: boolean | undefined;
  /** Digits. Default true. */
  digits?: boolean | undefined;
  /** Symbols ({@link PASSWORD_CHARACTERS}). Default true. */
  symbols?: boolean | undefined;
  /** Let look-alike characters in (`l`, `I`, `O`, `0`, `1`). Default false. */
  ambiguous?: boolean | undefined;
}

/** The classes and their characters, as the rules ask for them. */
function classesOf(rules: PasswordRules): string[] {
  const kinds: (keyof typeof PASSWORD_CHARACTERS)[] = ['lower'];
  if (rules.upper ?? true) kinds.push('upper');
  if (rules.digits ?? true) kinds.push('digit');
  if (rules.symbols ?? true) kinds.push('symbol');
  return kinds.map((kind) => PASSWORD_CHARACTERS[kind] + (rules.ambiguous ? AMBIGUOUS[kind] : ''));
}

/**
 * The shortest length that reaches `bits` over an alphabet: two characters more than the bare
 * count, for the classes each drawn at least once.
 */
function lengthFor(bits: number, alphabetSize: number): number {
  return Math.ceil(bits / Math.log2(alphabetSize)) + 2;
}

/**
 * Checks rules and says the length they make.
 *
 * @param rules The rules.
 * @returns The length, and the alphabet by class.
 * @throws {VaultError} `invalid_request` for a length out of range, or one too short for the level.
 */
function planPassword(rules: PasswordRules): { length: number; classes: string[] } {
  const classes = classesOf(rules);
  const alphabet = classes.join('').length;
  const { length } = rules;
  if (
    length !== undefined &&
    !(Number.isInteger(length) && length >= PASSWORD_LENGTH.min && length <= PASSWORD_LENGTH.max)
  ) {
    throw new VaultError(
      'invalid_request',
      `Expected a password length of ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max}, received ${String(length).slice(0, 20)}.`,
    );
  }
  const level = rules.complexityLevel;
  // Every class allowed or not, the strongest level stays under the longest length (30 at most).
  if (length === undefined)
    return { length: Math.max(DEFAULT_MIN_LENGTH, lengthFor(requiredBits(level), alphabet)), classes };
  if (level !== undefined) {
    const needed = lengthFor(requiredBits(level), alphabet);
    if (length < needed) {
      throw new VaultError(
        'invalid_request',
        `Complexity level ${level} needs ${requiredBits(level)} bits: at least ${needed} characters from these classes, received a length of ${length}.`,
      );
    }
  }
  return { length, classes };
}

/**
 * The length {@link generatePassword} gives a password by these rules, checked as it checks them.
 *
 * @param rules The rules.
 * @returns The length.
 * @throws {VaultError} `invalid_request` for rules no password can meet.
 */
export function passwordLength(rules: PasswordRules = {}): number {
  return planPassword(rules).length;
}

/**
 * A uniform random integer in [0, max) from the Web Crypto generator, by rejection: no modulo bias.
 *
 * @param max The bound, at most 2^32.
 * @returns The integer.
 */
export function randomIndex(max: number): number {
  const limit = Math.floor(0x1_0000_0000 / max) * max;
  const buffer = new Uint32Array(1);
  for (;;) {
    crypto.getRandomValues(buffer);
    const value = buffer[0]!;
    if (value < limit) return value % max;
  }
}

/**
 * Generates a random password: every class asked for at least once, the rest drawn from all of
 * them, shuffled, with `crypto.getRandomValues` and no bias. Without rules: all four classes, no
 * look-alikes, long enough for the strongest complexity level (128 bits: 23 characters).
 *
 * @param rules The length, classes and complexity level.
 * @returns The password.
 * @throws {VaultError} `invalid_request` for rules no password can meet (a length out of range, or
 *   too short for the complexity level asked).
 * @example
 * ```ts
 * generatePassword(); // 23 characters, 128 bits
 * generatePassword({ complexityLevel: 50 }); // 16 characters
 * generatePassword({ length: 12, symbols: false }); // letters and digits
 * ```
 */
export function generatePassword(rules: PasswordRules = {}): string {
  const { length, classes } = planPassword(rules);
  const alphabet = classes.join('');
  const chars = classes.slice(0, length).map((set) => set[randomIndex(set.length)]!);
  while (chars.length < length) chars.push(alphabet[randomIndex(alphabet.length)]!);
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomIndex(i + 1);
    [chars[i], chars[j]] = [chars[j]!, chars[i]!];
  }
  return chars.join('');
}
