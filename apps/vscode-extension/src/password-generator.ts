/**
 * A uniform random integer in [0, max) from the Web Crypto generator (the same in Node and in a web
 * worker), by rejection: no modulo bias.
 */
function randomInt(max: number): number {
  const limit = Math.floor(0x1_0000_0000 / max) * max;
  const buffer = new Uint32Array(1);
  for (;;) {
    crypto.getRandomValues(buffer);
    const value = buffer[0]!;
    if (value < limit) return value % max;
  }
}

const CLASSES = [
  'abcdefghijkmnopqrstuvwxyz',
  'ABCDEFGHJKLMNPQRSTUVWXYZ',
  '23456789',
  // No `;`, `/` or quotes: values travel in URL paths and get pasted into shells and config files.
  '!#$%&*+-=?@^_~.,:',
] as const;

/**
 * Entropy, in bits, asked for each folder complexity level (0 Very weak … 90 Very heavy). The API
 * does not say how a server scores strength, so each level is mapped to a generous entropy floor.
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

/** The entropy a complexity level requires; unknown levels get the strongest requirement. */
export function requiredBits(complexityLevel: number | undefined): number {
  if (complexityLevel === undefined) return BITS_FOR_LEVEL[0]![1];
  for (const [level, bits] of BITS_FOR_LEVEL) if (complexityLevel >= level) return bits;
  return BITS_FOR_LEVEL[BITS_FOR_LEVEL.length - 1]![1];
}

/** The kinds of characters a password can draw from, and how many characters each kind has. */
export const POOL_SIZES = { lower: 26, upper: 26, digit: 10, symbol: 33 } as const;

/** A kind of character of {@link POOL_SIZES}. */
export type CharacterKind = keyof typeof POOL_SIZES;

/** The kinds of characters a password uses. */
export function characterKinds(password: string): CharacterKind[] {
  const kinds: CharacterKind[] = [];
  if (/[a-z]/.test(password)) kinds.push('lower');
  if (/[A-Z]/.test(password)) kinds.push('upper');
  if (/[0-9]/.test(password)) kinds.push('digit');
  if (/[^a-zA-Z0-9]/.test(password)) kinds.push('symbol');
  return kinds;
}

/**
 * Estimates a password's entropy from its length and the character classes it uses.
 *
 * @returns Bits of entropy, an upper bound for human-chosen passwords.
 */
export function estimateBits(password: string): number {
  const pool = characterKinds(password).reduce((sum, kind) => sum + POOL_SIZES[kind], 0);
  return pool === 0 ? 0 : [...password].length * Math.log2(pool);
}

/** Tells whether a password meets a folder's complexity level. */
export function meetsComplexity(password: string, complexityLevel: number | undefined): boolean {
  return estimateBits(password) >= requiredBits(complexityLevel);
}

/**
 * Generates a random password that meets a folder's complexity level: every character class at
 * least once, drawn with a cryptographic generator, long enough for the level's entropy.
 */
export function generatePassword(complexityLevel: number | undefined): string {
  const alphabet = CLASSES.join('');
  const length = Math.max(16, Math.ceil(requiredBits(complexityLevel) / Math.log2(alphabet.length)) + 2);
  const chars = CLASSES.map((set) => set[randomInt(set.length)]!);
  while (chars.length < length) chars.push(alphabet[randomInt(alphabet.length)]!);
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j]!, chars[i]!];
  }
  return chars.join('');
}
